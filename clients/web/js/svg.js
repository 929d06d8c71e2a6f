// Small helpers for drawing boards as SVG.

const SVG_NS = "http://www.w3.org/2000/svg";

// An SVG element with attributes; `text` becomes its text content.
export function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  if (text !== null) node.textContent = text;
  return node;
}

// A fresh <svg> filling `container`, scaled from a width x height viewBox.
// To assistive technology the drawing is one image named `label`;
// `description` (the position in words: boards/describe.js) becomes its
// <desc>, the image's accessible description, since a screen reader cannot
// read the pieces off the picture.
export function canvas(container, width, height, label, description = "") {
  // A second redraw before the first one's focus came back (the page may
  // draw twice in one go) carries the first one's part on.
  const focused = focusedPart(container) ?? refocus.get(container) ?? null;
  refocus.set(container, focused);
  container.replaceChildren();
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "board-svg",
    role: "img",
    "aria-label": label,
  });
  if (description) svg.append(el("desc", {}, description));
  container.append(svg);
  svg.addEventListener("keydown", (event) => boardKey(svg, event));
  // The board module draws its clickable parts after this returns: once it
  // has, one of them becomes the board's Tab stop (the one that had the
  // focus before the redraw, so that playing on from the keyboard keeps it).
  queueMicrotask(() => {
    if (!svg.isConnected) return; // drawn over since: the later drawing restores it
    refocus.delete(container);
    rovingStop(svg, focused);
  });
  return svg;
}

// The part of the board to focus again after a redraw, by board container.
const refocus = new WeakMap();

// Keyboard play. A board with clickable parts (squares, points, columns,
// stones) is one Tab stop, as a grid is in the ARIA practices: the arrow
// keys move the focus to the nearest part drawn in that direction, Home
// and End to the first and last, and Enter or Space clicks it. The Move
// box (key m) stays the way to type a move.
const PART = "[data-board-part]";
const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// The index of the part of the board in `container` that has the focus, or
// null. When the focus is elsewhere in the board (chess's promotion chooser),
// the board's Tab stop, the part last reached, counts as focused: the
// redraw after the choice returns there.
function focusedPart(container) {
  const active = document.activeElement;
  if (!(active instanceof Element) || !container.contains(active)) return null;
  const parts = [...container.querySelectorAll(PART)];
  const part = active.closest(PART) ?? container.querySelector(`${PART}[tabindex="0"]`);
  const index = parts.indexOf(part);
  return index < 0 ? null : index;
}

function rovingStop(svg, focused) {
  const parts = [...svg.querySelectorAll(PART)];
  if (!parts.length) return;
  const index = focused === null ? 0 : Math.min(focused, parts.length - 1);
  parts.forEach((part, i) => part.setAttribute("tabindex", i === index ? "0" : "-1"));
  if (focused !== null) parts[index].focus({ preventScroll: true });
}

function moveFocus(from, to) {
  from.setAttribute("tabindex", "-1");
  to.setAttribute("tabindex", "0");
  to.focus({ preventScroll: true });
}

function middle(node) {
  const box = node.getBBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

// The part nearest to `from` in direction (dx, dy): ahead of it on that
// axis, the distance across the axis counting double, so that a step stays
// in its row or column when there is one.
function nextPart(parts, from, [dx, dy]) {
  const here = middle(from);
  let best = null;
  let bestCost = Infinity;
  for (const part of parts) {
    if (part === from) continue;
    const there = middle(part);
    const ahead = (there.x - here.x) * dx + (there.y - here.y) * dy;
    if (ahead <= 0.5) continue;
    const across = Math.abs((there.x - here.x) * dy) + Math.abs((there.y - here.y) * dx);
    const cost = ahead + 2 * across;
    if (cost < bestCost) {
      best = part;
      bestCost = cost;
    }
  }
  return best;
}

function boardKey(svg, event) {
  const part = event.target instanceof Element ? event.target.closest(PART) : null;
  if (!part || event.ctrlKey || event.metaKey || event.altKey) return;
  const parts = [...svg.querySelectorAll(PART)];
  let to = null;
  if (event.key in STEPS) to = nextPart(parts, part, STEPS[event.key]);
  else if (event.key === "Home") to = parts[0];
  else if (event.key === "End") to = parts[parts.length - 1];
  else if (event.key === "Enter" || event.key === " ") {
    part.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  } else return;
  // The page's own arrows (a move back and forward) and Home/End are for
  // the move list: on the board, these keys are the board's.
  event.preventDefault();
  event.stopPropagation();
  if (to) moveFocus(part, to);
}

// Files a, b, c, ... by zero-based index.
export function fileLetter(index) {
  return String.fromCharCode(97 + index);
}

// Marks `node` clickable: pointer cursor, and a handler that ignores
// clicks while the board is not accepting moves. It is also a part of the
// board the keyboard reaches (above), named `label` (by default the move or
// square it stands for) when it has the focus.
export function onClick(node, view, handler, label = null) {
  node.classList.add("clickable");
  node.setAttribute("data-board-part", "");
  node.setAttribute("tabindex", "-1");
  node.setAttribute("role", "button");
  const name = label ?? node.dataset.move ?? node.dataset.square ?? null;
  if (name) node.setAttribute("aria-label", name);
  // A click with the mouse does not put the focus on the part (nor leave
  // it where it was): the focus goes to the page, as on a drawing with no
  // keyboard parts, so that ← and → after a click still step through the
  // moves (the GUI tests' analysis follows the position so).
  node.addEventListener("mousedown", (event) => {
    event.preventDefault();
    if (document.activeElement instanceof HTMLElement || document.activeElement instanceof SVGElement) {
      document.activeElement.blur();
    }
  });
  node.addEventListener("click", (event) => {
    event.preventDefault();
    if (view.interactive) handler(event);
  });
}
