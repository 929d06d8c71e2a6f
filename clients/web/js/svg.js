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
  container.replaceChildren();
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "board-svg",
    role: "img",
    "aria-label": label,
  });
  if (description) svg.append(el("desc", {}, description));
  container.append(svg);
  return svg;
}

// Files a, b, c, ... by zero-based index.
export function fileLetter(index) {
  return String.fromCharCode(97 + index);
}

// Marks `node` clickable: pointer cursor, and a handler that ignores
// clicks while the board is not accepting moves.
export function onClick(node, view, handler) {
  node.classList.add("clickable");
  node.addEventListener("click", (event) => {
    event.preventDefault();
    if (view.interactive) handler(event);
  });
}
