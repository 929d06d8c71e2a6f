// Lays out a search trace top-down: one column ("slot") per leaf of the
// drawing, every other node centred over its drawn children, one row per
// ply. Large traces are collapsed: only the nodes in `expanded` show their
// children, and a node with many children shows a few of them and one
// "+N more" box for the rest (unless it is in `showAll`). `visible`, when
// given, leaves out the nodes it refuses: MCTS lays out only the tree grown
// so far, so that every step reads as compactly as the last. `keep`, when
// given, holds nodes never left in a "+N more" box (the current step's path).

import { ghostCount } from "./learn-model.js";

// Sizes in SVG units: the full drawing, and the compact one of the side by side.
export const SLOT = 64; // width of one column
export const LEVEL = 100; // height of one row (a ply, or a chance event)
export const COMPACT = { slot: 42, level: 74, margin: 14 };
export const MARGIN_X = 40;
export const MARGIN_TOP = 34;
export const MARGIN_BOTTOM = 70;

// A node with more children than this shows this many (the principal one
// among them) and a "+N more" box.
export const MAX_CHILDREN = 10;

// Traces with more nodes than this start collapsed to the principal line.
export const FULL_TREE_NODES = 80;

// Which nodes start expanded: all of a small trace (with the whole of the
// subtrees alpha-beta pruned, when known), the principal line of a large one.
export function initialExpansion(trace) {
  const drawn = trace.nodes.length + trace.nodes.reduce((sum, node) => sum + node.ghosts.reduce((n, g) => n + ghostCount(g), 0), 0);
  if (drawn <= FULL_TREE_NODES) return { expanded: new Set(trace.nodes), collapsed: false };
  return { expanded: new Set(trace.principal), collapsed: true };
}

// Number of visited nodes below `node` (of those `visible` accepts).
export function descendants(node, visible = null) {
  if (visible) return node.children.reduce((sum, child) => sum + (visible(child) ? 1 + descendants(child, visible) : 0), 0);
  if (node.descendantCount === undefined) {
    node.descendantCount = node.children.reduce((sum, child) => sum + 1 + descendants(child), 0);
  }
  return node.descendantCount;
}

// {items, edges, width, height}: items are
//   {type: "node", node, x, y, open (children drawn), hidden (nodes not drawn below)}
//   {type: "ghost", ghost, x, y, open}    a node alpha-beta never visited
//                                         (with its subtree when known and
//                                         every node is expanded)
//   {type: "more", parent, count, nodes, left, x, y}  children left out
//                                         (left: those visited, nodes: how
//                                         many nodes they hold)
// and edges {parentItem, childItem}.
export function layout(trace, expanded, showAll, { slot: slotWidth = SLOT, level: levelHeight = LEVEL, margin = MARGIN_X, maxChildren = MAX_CHILDREN, visible = null, keep = null } = {}) {
  const columnX = (slot) => margin + 20 + slot * slotWidth;
  const rowY = (level) => MARGIN_TOP + level * levelHeight;
  const items = [];
  const edges = [];
  let slot = 0;
  let deepest = 0;
  const allExpanded = trace.nodes.every((node) => expanded.has(node));
  const placeGhost = (ghost) => {
    const item = { type: "ghost", ghost, x: 0, y: rowY(ghost.level), open: false };
    items.push(item);
    deepest = Math.max(deepest, ghost.level);
    if (!allExpanded || ghost.children.length === 0) {
      item.x = columnX(slot++);
      return item;
    }
    item.open = true;
    const childItems = ghost.children.map(placeGhost);
    for (const child of childItems) edges.push({ parentItem: item, childItem: child });
    item.x = (childItems[0].x + childItems[childItems.length - 1].x) / 2;
    return item;
  };
  const place = (node) => {
    const item = { type: "node", node, x: 0, y: rowY(node.level), open: false, hidden: 0 };
    items.push(item);
    deepest = Math.max(deepest, node.level);
    const children = visible ? node.children.filter(visible) : node.children;
    const entries = [...children, ...node.ghosts];
    if (entries.length === 0) {
      item.x = columnX(slot++);
      return item;
    }
    if (!expanded.has(node)) {
      item.hidden = descendants(node, visible);
      item.x = columnX(slot++);
      return item;
    }
    item.open = true;
    let shown = entries;
    let left = [];
    if (entries.length > maxChildren && !showAll.has(node)) {
      // The first ones, in their order, and among them always the principal
      // child and the child on the current step's path (`keep`): a step's
      // text named a node hidden in the "+N more" box (a review, 2026-12-07).
      const wanted = children.filter((child) => trace.principal.has(child) || (keep !== null && keep.has(child)));
      const others = entries.filter((entry) => !wanted.includes(entry)).slice(0, maxChildren - 1 - wanted.length);
      shown = entries.filter((entry) => wanted.includes(entry) || others.includes(entry));
      left = entries.filter((entry) => !shown.includes(entry));
    }
    const childItems = [];
    for (const entry of shown) {
      childItems.push(entry.ghost ? placeGhost(entry) : place(entry));
    }
    if (left.length > 0) {
      const count = left.reduce((sum, entry) => sum + (entry.ghost ? 0 : 1 + descendants(entry, visible)), 0);
      const more = { type: "more", parent: node, count: left.length, nodes: count, left: left.filter((entry) => !entry.ghost), x: columnX(slot++), y: rowY(node.level + 1) };
      items.push(more);
      childItems.push(more);
    }
    deepest = Math.max(deepest, node.level + 1);
    for (const child of childItems) edges.push({ parentItem: item, childItem: child });
    item.x = (childItems[0].x + childItems[childItems.length - 1].x) / 2;
    return item;
  };
  place(trace.root);
  return {
    items,
    edges,
    width: Math.max(2 * margin + (slot - 1) * slotWidth, 2 * margin + slotWidth) + 40,
    height: MARGIN_TOP + deepest * levelHeight + MARGIN_BOTTOM,
  };
}
