// The textbook trees the Learn page offers one click away, in game
// `tree`'s notation (protocol.md): nested lists of leaf utilities, MAX to
// move at the root; {"p": [...], "c": [...]} a chance node; {"v": 5, "c":
// [...]} an inner node with an evaluation for depth cut-offs. An example
// may name another `game` (its start position when `position` is empty).

export const EXAMPLES = [
  {
    key: "notes",
    title: "Minimax: the notes' tree",
    position: "[[3,12,8],[2,4,6],[14,5,2]]",
    algorithm: "minimax",
    depth: "",
    note: "MAX picks the largest of the MIN values 3, 2 and 2: the value is 3, by move 1. Minimax looks at all nine leaves. Switch the search to alpha-beta to see which two it never needs.",
  },
  {
    key: "notes-alphabeta",
    title: "Alpha-beta: the notes' tree",
    position: "[[3,12,8],[2,4,6],[14,5,2]]",
    algorithm: "alphabeta",
    depth: "",
    note: "After move 1 MAX is sure of 3 (α = 3). Under move 2 the first leaf, 2, shows MIN can hold MAX to 2 or less there: whatever the leaves 4 and 6 are, move 2 is worse than move 1, so they are never looked at.",
  },
  {
    key: "deep",
    title: "Alpha-beta exercise (4 plies)",
    position: "[[[[10,11],[9,12]],[[14,15],[13,14]]],[[[5,2],[4,1]],[[3,22],[20,21]]]]",
    algorithm: "alphabeta",
    depth: "",
    note: "Four plies, two moves a node. Step through it and fill in the table by hand first: which subtrees are cut, and by α or by β?",
  },
  {
    key: "bad-order",
    title: "Ordering: worst first",
    position: '[{"v":2,"c":[{"v":8,"c":[5,7,8]},{"v":6,"c":[3,4,6]},{"v":2,"c":[0,1,2]}]},{"v":3,"c":[{"v":9,"c":[6,8,9]},{"v":7,"c":[4,5,7]},{"v":3,"c":[1,2,3]}]},{"v":4,"c":[{"v":10,"c":[7,9,10]},{"v":8,"c":[5,6,8]},{"v":4,"c":[2,3,4]}]}]',
    algorithm: "alphabeta",
    depth: "",
    note: "Every node lists its worst move first, so alpha-beta cuts nothing: 27 leaves, as many as minimax. Each inner node also carries an evaluation (v, here its true value): ordered alpha-beta tries the best-looking move first and needs only 11. Compare the same tree written best first.",
  },
  {
    key: "good-order",
    title: "Ordering: best first",
    position: "[[[4,3,2],[8,6,5],[10,9,7]],[[3,2,1],[7,5,4],[9,8,6]],[[2,1,0],[6,4,3],[8,7,5]]]",
    algorithm: "alphabeta",
    depth: "",
    note: "The same tree with every node's best move first: plain alpha-beta evaluates 11 leaves instead of 27 for the same value. With perfect ordering alpha-beta looks at about b^(d/2) leaves instead of b^d: it can search twice as deep in the same time.",
  },
  {
    key: "chance",
    title: "Expectiminimax: chance nodes",
    position: '[{"p":[0.5,0.5],"c":[[2,4],[7,4]]},{"p":[0.5,0.5],"c":[[1,5],[0,6]]}]',
    algorithm: "expectiminimax",
    depth: "",
    note: "Each move of MAX leads to a coin toss (○), then MIN moves. A chance node's value is the average of its children weighted by their probabilities: 0.5 × 2 + 0.5 × 4 = 3 for move 1, 0.5 × 1 + 0.5 × 0 = 0.5 for move 2.",
  },
  {
    key: "cutoff",
    title: "Depth cut-off with an evaluation",
    position: '[[{"v":6,"c":[1,2]},{"v":7,"c":[3,1]}],[{"v":4,"c":[9,8]},{"v":5,"c":[7,9]}]]',
    algorithm: "minimax",
    depth: "2",
    note: "At depth 2 the search stops and uses the evaluation (v) of each position (dashed): it prefers move 1 (6). Clear the depth to search to the end: move 2 is worth 9 and move 1 only 2. The evaluation was wrong just beyond the horizon.",
  },
  {
    key: "mcts",
    title: "MCTS: tic-tac-toe, 200 playouts",
    game: "tictactoe",
    position: "",
    algorithm: "mcts",
    depth: "",
    playouts: 200,
    seed: 1,
    note: "Monte Carlo tree search from the empty board: each playout walks down the tree by UCB, adds one node, plays the game out at random and counts the result on the way back. Every node shows MAX's wins/visits (a draw counts ½). The root's visits are the 200 playouts; the most visited move is the one to play. Step through the playouts to watch the tree grow towards the moves that win most.",
  },
];

export function example(key) {
  return EXAMPLES.find((entry) => entry.key === key) || null;
}
