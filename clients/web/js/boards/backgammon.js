// Backgammon: points numbered from each player's side (24 to 1), moves in GNU
// Backgammon's notation (24/18 13/11, bar/22*, 6/off), played here with a
// button per legal move (or typed). The position is the GNU Backgammon
// Position ID, the player on roll and the dice: "4HPwATDgc/ABMA 0 3-1",
// "... 1 -" while the dice are to be rolled, "... opening" at the start.
// The board is drawn from player 0's side (player 1's when flipped).

import { canvas, el } from "../svg.js";
import { playerTitle, t } from "../i18n.js";
import { describeCheckersOnPoints } from "./describe.js";

const POINT_W = 40;
const BAR_W = 34;
const TRAY_W = 46;
const MARGIN = 22;
const HALF_H = 190;
const TRIANGLE_H = 150;
const CHECKER_R = 17;
// Checkers drawn per point; more are counted by a number on the top one.
const MAX_STACK = 5;
const CHECKERS = 15;
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PIPS = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

export default function create(container, hooks) {
  return {
    flippable: true,
    update(view) {
      container.replaceChildren();
      const { counts, onRoll, dice } = parsePosition(view.state.position);
      const viewer = view.flipped ? 1 : 0;
      const width = 12 * POINT_W + BAR_W + TRAY_W + 2 * MARGIN;
      const height = 2 * HALF_H + 2 * MARGIN;
      const own = (player) => counts[player === onRoll ? 0 : 1];
      const name = (player) => {
        const text = view.players[player] ?? String(player);
        return playerTitle(text);
      };
      const words = [0, 1].map((player) => describeCheckersOnPoints(own(player), name(player), CHECKERS)).join(" ");
      const svg = canvas(document.createElement("div"), width, height, t("board.backgammon"), words);
      container.append(svg);
      svg.append(el("rect", { x: MARGIN, y: MARGIN, width: 12 * POINT_W + BAR_W, height: 2 * HALF_H, class: "bg-board" }));
      svg.append(el("rect", { x: MARGIN + 6 * POINT_W, y: MARGIN, width: BAR_W, height: 2 * HALF_H, class: "bg-bar" }));
      // The labels are the viewer's point numbers, or the player on roll's
      // when one page plays both sides: the move buttons and the move list
      // write a player's moves in its own numbers, and Black's 24/18 under
      // White's numbers read as the other end of the board (a review of
      // 2026-12-07).
      const numbering = view.numbersFollowTurn && onRoll !== null ? onRoll : viewer;
      for (let point = 1; point <= 24; point++) drawPoint(svg, point, numbering === viewer ? point : 25 - point);
      for (const player of [0, 1]) {
        const checkers = own(player);
        for (let index = 0; index < 24; index++) {
          const point = player === viewer ? index + 1 : 24 - index;
          drawStack(svg, point, checkers[index], player);
        }
        drawBar(svg, checkers[24], player, player === viewer);
        const off = CHECKERS - checkers.reduce((a, b) => a + b, 0);
        const trayX = MARGIN + 12 * POINT_W + BAR_W + 6;
        const trayY = player === viewer ? MARGIN + 2 * HALF_H - 30 : MARGIN + 8;
        svg.append(el("rect", { x: trayX, y: trayY, width: TRAY_W - 10, height: 22, rx: 4, class: `bg-off checker-${player}` }));
        svg.append(el("text", { x: trayX + (TRAY_W - 10) / 2, y: trayY + 12, class: `bg-count on-${player}` }, `${off}`));
      }
      if (dice) drawDice(svg, dice, onRoll, viewer);
      if (view.state.result) hooks.note("");
      else hooks.note(dice ? t("board.bg.play", { name: name(onRoll), dice: dice.join("-") }) : (onRoll === null ? t("board.bg.opening") : t("board.bg.roll", { name: name(onRoll) })));
      container.append(moveButtons(view, hooks));
    },
  };

  function pointX(point) {
    // Bottom row: 12 at the left to 1 at the right; top row: 13 at the left to 24.
    const column = point <= 12 ? 12 - point : point - 13;
    return MARGIN + column * POINT_W + (column >= 6 ? BAR_W : 0);
  }

  function drawPoint(svg, point, label) {
    const x = pointX(point);
    const bottom = point <= 12;
    const base = bottom ? MARGIN + 2 * HALF_H : MARGIN;
    const tip = bottom ? base - TRIANGLE_H : base + TRIANGLE_H;
    svg.append(el("path", {
      d: `M ${x} ${base} L ${x + POINT_W / 2} ${tip} L ${x + POINT_W} ${base} Z`,
      class: point % 2 === 0 ? "bg-point-a" : "bg-point-b",
    }));
    svg.append(el("text", { x: x + POINT_W / 2, y: bottom ? base + 12 : base - 10, class: "coord", "data-point": point }, String(label)));
  }

  function drawStack(svg, point, count, player) {
    if (count === 0) return;
    const bottom = point <= 12;
    const cx = pointX(point) + POINT_W / 2;
    for (let i = 0; i < Math.min(count, MAX_STACK); i++) {
      const offset = CHECKER_R + i * 2 * CHECKER_R;
      const cy = bottom ? MARGIN + 2 * HALF_H - offset : MARGIN + offset;
      svg.append(el("circle", { cx, cy, r: CHECKER_R - 1, class: `checker checker-${player}` }));
      if (i === MAX_STACK - 1 && count > MAX_STACK) {
        svg.append(el("text", { x: cx, y: cy, class: `bg-count on-${player}` }, String(count)));
      }
    }
  }

  function drawBar(svg, count, player, viewerSide) {
    if (count === 0) return;
    const cx = MARGIN + 6 * POINT_W + BAR_W / 2;
    const cy = viewerSide ? MARGIN + HALF_H + 2 * CHECKER_R : MARGIN + HALF_H - 2 * CHECKER_R;
    svg.append(el("circle", { cx, cy, r: CHECKER_R - 1, class: `checker checker-${player}` }));
    svg.append(el("text", { x: cx, y: cy, class: `bg-count on-${player}` }, String(count)));
  }

  function drawDice(svg, dice, onRoll, viewer) {
    // The dice lie on the right half for the viewer's roll, on the left otherwise.
    const right = onRoll === viewer;
    const centreX = MARGIN + (right ? 9 * POINT_W + BAR_W : 3 * POINT_W);
    dice.forEach((value, i) => {
      const x = centreX + (i === 0 ? -34 : 6);
      const y = MARGIN + HALF_H - 14;
      svg.append(el("rect", { x, y, width: 28, height: 28, rx: 5, class: `die checker-${onRoll}` }));
      for (const [dx, dy] of PIPS[value] || []) {
        svg.append(el("circle", { cx: x + 14 + dx * 7, cy: y + 14 + dy * 7, r: 2.6, class: `pip on-${onRoll}` }));
      }
    });
  }
}

function moveButtons(view, hooks) {
  const box = document.createElement("div");
  box.className = "generic-moves bg-moves";
  if (!view.interactive) return box;
  for (const move of view.state.legal_moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = move;
    button.dataset.move = move;
    button.addEventListener("click", () => hooks.play(move));
    box.append(button);
  }
  return box;
}

// "ID player dice" -> {counts: [on roll's 25 counts, opponent's], onRoll, dice}.
function parsePosition(position) {
  const [id, roller = "opening", dice = "-"] = position.trim().split(/\s+/);
  const opening = roller === "opening";
  return {
    // The ID holds the opponent's checkers first (as GNU Backgammon writes it).
    counts: decodePositionId(id).reverse(),
    onRoll: opening ? null : Number(roller),
    dice: opening || dice === "-" ? null : dice.split("-").map(Number),
  };
}

// The Position ID is 80 bits in base64, least significant bit of each byte
// first: for each player (the one NOT on roll first, as GNU Backgammon 1.07
// writes and reads it) and each of its points 1-24
// and then the bar, as many 1 bits as checkers followed by a 0.
function decodePositionId(id) {
  const bytes = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of id) {
    const value = BASE64.indexOf(ch);
    if (value < 0) break;
    buffer = ((buffer << 6) | value) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  const counts = [[], []];
  let player = 0;
  let run = 0;
  for (const byte of bytes) {
    for (let bit = 0; bit < 8 && player < 2; bit++) {
      if ((byte >> bit) & 1) {
        run++;
      } else {
        counts[player].push(run);
        run = 0;
        if (counts[player].length === 25) player++;
      }
    }
  }
  for (const list of counts) while (list.length < 25) list.push(0);
  return counts;
}
