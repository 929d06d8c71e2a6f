#!/usr/bin/env node
// A Connect Four bot for arena (docs/bots.md), for node: win if it can, else block, else the centre.
const readline = require("readline");

function four(board, x, y, me) { // would a disc of `me` at (x, y) make four in a row?
  for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    let run = 1;
    for (const step of [1, -1]) {
      for (let k = 1; board.get(`${x + step * k * dx},${y + step * k * dy}`) === me; k++) run++;
    }
    if (run >= 4) return true;
  }
  return false;
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line); // one request per line, one answer per request
  const board = new Map(), height = {};
  [...request.position].forEach((column, i) => { // the columns played so far
    const x = Number(column), y = height[x] || 0;
    board.set(`${x},${y}`, i % 2);
    height[x] = y + 1;
  });
  const me = request.to_move, centre = (request.options.width + 1) / 2;
  const legal = [...request.legal].sort((a, b) => Math.abs(a - centre) - Math.abs(b - centre));
  const wins = (who) => legal.filter((m) => four(board, Number(m), height[m] || 0, who));
  const move = [...wins(me), ...wins(1 - me), ...legal][0];
  process.stdout.write(JSON.stringify({ move: move, request: request.request }) + "\n");
});
