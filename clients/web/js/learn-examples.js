// The textbook trees and exercises the Learn page offers one click away
// (their titles, notes and sources are in strings.js: "ex.<key>.title",
// ".intro" (the question, safe before the search), ".note" (the answer),
// ".source"), in game
// `tree`'s notation (protocol.md): nested lists of leaf utilities, MAX to
// move at the root; {"p": [...], "c": [...]} a chance node; {"v": 5, "c":
// [...]} an inner node with an evaluation for depth cut-offs. An example
// may name another `game` (its start position when `position` is empty).
// `ask` lists the questions an exercise asks (learn-predict.js, parseQuestions).

export const EXAMPLES = [
  {
    key: "notes",
    position: "[[3,12,8],[2,4,6],[14,5,2]]",
    algorithm: "minimax",
    depth: "",
    ask: "value:2,move",
  },
  {
    key: "notes-alphabeta",
    position: "[[3,12,8],[2,4,6],[14,5,2]]",
    algorithm: "alphabeta",
    depth: "",
    ask: "prune,value:2,move",
  },
  {
    key: "who-wins",
    position: "[[[1,-1],[0,-1]],[[0,1],[1,1]],[[-1,0],[-1,-1]]]",
    algorithm: "minimax",
    depth: "",
    ask: "winner,value:1",
  },
  {
    key: "deep",
    position: "[[[[10,11],[9,12]],[[14,15],[13,14]]],[[[5,2],[4,1]],[[3,22],[20,21]]]]",
    algorithm: "alphabeta",
    depth: "",
    ask: "prune,move",
  },
  {
    key: "bad-order",
    position: '[{"v":2,"c":[{"v":8,"c":[5,7,8]},{"v":6,"c":[3,4,6]},{"v":2,"c":[0,1,2]}]},{"v":3,"c":[{"v":9,"c":[6,8,9]},{"v":7,"c":[4,5,7]},{"v":3,"c":[1,2,3]}]},{"v":4,"c":[{"v":10,"c":[7,9,10]},{"v":8,"c":[5,6,8]},{"v":4,"c":[2,3,4]}]}]',
    algorithm: "alphabeta",
    depth: "",
  },
  {
    key: "good-order",
    position: "[[[4,3,2],[8,6,5],[10,9,7]],[[3,2,1],[7,5,4],[9,8,6]],[[2,1,0],[6,4,3],[8,7,5]]]",
    algorithm: "alphabeta",
    depth: "",
  },
  {
    key: "chance",
    position: '[{"p":[0.5,0.5],"c":[[2,4],[7,4]]},{"p":[0.5,0.5],"c":[[1,5],[0,6]]}]',
    algorithm: "expectiminimax",
    depth: "",
    ask: "value:1,move",
  },
  {
    key: "cutoff",
    position: '[[{"v":6,"c":[1,2]},{"v":7,"c":[3,1]}],[{"v":4,"c":[9,8]},{"v":5,"c":[7,9]}]]',
    algorithm: "minimax",
    depth: "2",
  },
  {
    key: "mcts",
    game: "tictactoe",
    position: "",
    algorithm: "mcts",
    depth: "",
    playouts: 200,
    seed: 1,
  },
];

export function example(key) {
  return EXAMPLES.find((entry) => entry.key === key) || null;
}
