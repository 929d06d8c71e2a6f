// Nim: one row of stones per heap. Clicking a stone takes it and every stone
// to its right from that heap: the move `<heap>:<count>`, heaps from 1.
// The position is the heap sizes, then '/' and the player to move: "3 4 5 /0".

import { canvas, el, onClick } from "../svg.js";
import { t } from "../i18n.js";
import { describeHeaps } from "./describe.js";

const STONE = 34;
const ROW = 46;
const LABEL = 80;
// Stones drawn per heap at most; a bigger heap shows its size as text and
// a row of this many stones standing for its last ones.
const MAX_DRAWN = 20;

export default function create(container, hooks) {
  return {
    update(view) {
      const heaps = parseHeaps(view.state.position);
      const drawn = Math.min(MAX_DRAWN, Math.max(1, ...heaps));
      const width = LABEL + drawn * STONE + 20;
      const svg = canvas(container, width, heaps.length * ROW + 20, t("board.nim"), describeHeaps(heaps));
      const lastHeap = view.lastMove ? Number(view.lastMove.split(":")[0]) - 1 : -1;
      heaps.forEach((size, heap) => {
        const y = 10 + heap * ROW;
        if (heap === lastHeap) svg.append(el("rect", { x: 2, y, width: width - 4, height: ROW - 6, rx: 6, class: "nim-heap-last" }));
        svg.append(el("text", { x: 8, y: y + ROW / 2 - 3, class: "nim-label" }, `${heap + 1}: ${size}`));
        const shown = Math.min(size, MAX_DRAWN);
        const stones = [];
        for (let i = 0; i < shown; i++) {
          const count = shown - i; // stones from this one to the right end
          const stone = el("circle", {
            cx: LABEL + i * STONE + STONE / 2, cy: y + ROW / 2 - 3, r: STONE * 0.4,
            class: "nim-stone", "data-move": `${heap + 1}:${count}`,
          });
          stone.append(el("title", {}, t("board.nim.take", { count, heap: heap + 1 })));
          stone.addEventListener("mouseenter", () => stones.forEach((s, j) => s.classList.toggle("take", j >= i)));
          stone.addEventListener("mouseleave", () => stones.forEach((s) => s.classList.remove("take")));
          onClick(stone, view, () => hooks.play(`${heap + 1}:${count}`), t("board.nim.take", { count, heap: heap + 1 }));
          stones.push(stone);
          svg.append(stone);
        }
      });
      if (view.lastMove) hooks.note(t("board.nim.last", { count: view.lastMove.split(":")[1], heap: lastHeap + 1 }));
    },
  };
}

function parseHeaps(position) {
  const [sizes] = position.split("/");
  return sizes.trim().split(/\s+/).filter(Boolean).map(Number);
}
