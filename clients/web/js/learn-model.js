// The Learn page's model of a search trace (protocol.md, the `trace` reply):
// the nodes as a tree, the search's events in order, what every node shows
// at a given step (its value so far, alpha and beta), the principal line,
// and the effective branching factor. No drawing here. A Monte Carlo tree
// search trace (`mcts`) is another kind of thing: the final tree, whose
// steps replay its growth one node per playout (see Trace.events).

import { localNumber, t } from "./i18n.js";

// Values of real games: a win for MAX is WIN minus the plies to it.
const WIN = 1000000;
const PROVEN = 999000;

// "-inf" / "inf" on the wire; numbers as they are.
export function bound(value) {
  if (value === "inf" || value === "+inf") return Infinity;
  if (value === "-inf") return -Infinity;
  if (value === null || value === undefined) return null;
  return Number(value);
}

// A value as text, from MAX's side: proven results as +W3 (MAX wins in 3
// plies) and -L3 (MAX loses in 3), fractions to three places at most,
// with the reader's decimal mark ("0,5" in Portuguese).
export function formatValue(value) {
  return localNumber(codeValue(value));
}

// The same with a decimal point whatever the language: the code panel
// shows the program's variables as Python writes them.
export function codeValue(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "";
  if (value === Infinity) return "+∞";
  if (value === -Infinity) return "−∞";
  if (Math.abs(value) >= PROVEN) return value > 0 ? `+W${WIN - value}` : `−L${WIN + value}`;
  const text = Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
  return text.replace(/^-/, "−");
}

// The same value in words, for labels and tooltips.
export function describeValue(value) {
  if (value === Infinity) return t("value.plus.infinity");
  if (value === -Infinity) return t("value.minus.infinity");
  if (Math.abs(value) >= PROVEN) {
    const plies = value > 0 ? WIN - value : WIN + value;
    return t(value > 0 ? "value.wins" : "value.loses", { plies });
  }
  return formatValue(value).replace("−", t("value.minus"));
}

export function playerName(player) {
  if (player === "max") return "MAX";
  if (player === "min") return "MIN";
  if (player === "chance") return t("node.chance");
  return player;
}

// The trace as a tree. `positionTree` is the parsed position of game
// `tree` (nested lists), used to show the utilities of pruned leaves.
// Whether an alpha-beta node returned from its cut test ("if v <= alpha
// then return v" under MIN, "if v >= beta" under MAX): with moves left to
// prune, or at its last child, where nothing is pruned but the window is
// not narrowed either.
export function cutTestFired(node, hasWindows) {
  if (!hasWindows || node.children.length === 0 || node.value === null) return false;
  if (node.player === "min") return node.alphaOut !== null && node.value <= node.alphaOut;
  if (node.player === "max") return node.betaOut !== null && node.value >= node.betaOut;
  return false;
}

// What an alpha-beta search knows of a node's minimax value from the value
// it returned: "upper" (the true value is at most it), "lower" (at least
// it), null when it is exact (a leaf, a cut-off's evaluation, a node that
// searched every move and got exact values back, any node of a search
// without windows). The review of 2026-12-07: a MIN node's 5 was drawn and
// explained as its value, where its minimax value was 2 (the textbook's
// figure 5.5 writes such a node "≤ 2"). From the children, not from the
// window alone: a MIN node whose last move came in at or below alpha, after
// every move was searched, is exact (the notes' node 3 is 2, as figure 5.5
// writes it). Under MIN the value is the least of the searched moves':
// at most it if that move's value is exact or at most; at least it if no
// move was pruned and every move's value is exact or at least. MAX is the
// mirror image. Known neither way (it cannot happen in the trees here),
// it is shown as a bound of the side that cut ("upper" under MIN).
export function boundKind(node, hasWindows) {
  if (!hasWindows || node.children.length === 0 || node.value === null) return null;
  if (node.player !== "max" && node.player !== "min") return null;
  const kinds = node.children.map((child) => boundKind(child, hasWindows));
  const best = node.children.findIndex((child) => child.value === node.value);
  const mine = node.player === "min" ? "upper" : "lower";
  const other = node.player === "min" ? "lower" : "upper";
  const bestHolds = best >= 0 && kinds[best] !== other; // the chosen move's value is exact or on our side
  const allHold = node.prunedAfter.length === 0 && kinds.every((kind) => kind !== mine);
  if (bestHolds && allHold) return null;
  if (allHold) return other;
  return mine;
}

// "≤" or "≥" before a bound's value, "" before an exact one.
export function boundMark(node, hasWindows) {
  const kind = boundKind(node, hasWindows);
  return kind === "upper" ? "≤" : kind === "lower" ? "≥" : "";
}

export class Trace {
  constructor(reply, positionTree = null) {
    this.reply = reply;
    this.algorithm = reply.algorithm;
    this.value = reply.value;
    this.bestMove = reply.best_move ?? null;
    this.visited = reply.visited ?? reply.nodes.length;
    this.leaves = reply.leaves ?? 0;
    this.hasWindows = reply.nodes.some((node) => "alpha_in" in node);
    this.mcts = reply.algorithm === "mcts";
    this.playouts = reply.playouts ?? null;
    this.nodes = reply.nodes.map((raw) => ({
      id: raw.id,
      parentId: raw.parent,
      move: raw.move,
      player: raw.player,
      probability: raw.probability ?? null,
      depth: raw.depth,
      order: raw.order,
      exitOrder: raw.exit_order,
      alphaIn: bound(raw.alpha_in),
      betaIn: bound(raw.beta_in),
      alphaOut: bound(raw.alpha_out),
      betaOut: bound(raw.beta_out),
      value: raw.value === undefined || raw.value === null ? null : Number(raw.value),
      moverValue: raw.mover_value ?? null,
      kind: raw.kind || "inner",
      prunedAfter: raw.pruned_after || [],
      bestMove: raw.best_move ?? null,
      visits: raw.visits ?? null,
      wins: raw.wins ?? null,
      children: [],
      parent: null,
      path: "",
    }));
    const byId = new Map(this.nodes.map((node) => [node.id, node]));
    this.byId = byId;
    this.root = this.nodes.find((node) => node.parentId === null || node.parentId === undefined) || this.nodes[0];
    for (const node of this.nodes) {
      if (node === this.root) continue;
      const parent = byId.get(node.parentId);
      node.parent = parent;
      parent.children.push(node);
    }
    for (const node of this.nodes) node.children.sort((a, b) => a.order - b.order);
    // Paths ("root", "2", "2·1") and, for game tree, the unvisited subtrees.
    const walk = (node, subtree) => {
      node.level = node === this.root ? 0 : node.parent.level + 1;
      node.path = node === this.root ? "root" : node.parent === this.root ? node.move : `${node.parent.path}·${node.move}`;
      node.ghosts = node.prunedAfter.map((move) => ghost(node, move, childOf(subtree, move)));
      for (const child of node.children) walk(child, childOf(subtree, child.move));
    };
    walk(this.root, positionTree);
    // Plies searched (chance nodes take none) and rows drawn (they take one).
    this.depth = Math.max(0, ...this.nodes.map((node) => node.depth));
    this.levels = Math.max(0, ...this.nodes.map((node) => node.level));
    // Every entry and exit, in the order the search made them. MCTS: one
    // event per playout, from its log (protocol.md, playout_log): the last
    // node of its path, the node it added (if any) and its result; the
    // statistics as of each playout come from the log (statsAt). Without a
    // log (an older server), one event per node, the playout that added it.
    this.events = [];
    this.log = Array.isArray(reply.playout_log) ? reply.playout_log : null;
    if (this.mcts && this.log) {
      const added = new Map(this.nodes.map((node) => [node.order, node]));
      this.events.push({ step: 0, node: this.root, kind: "added", added: this.root, result: null });
      this.log.forEach(([id, result], i) => {
        const last = byId.get(id) || this.root;
        const fresh = added.get(i + 1);
        this.events.push({ step: i + 1, node: last, kind: "added", added: fresh && fresh === last ? fresh : null, result: Number(result) });
      });
      for (const event of this.events) {
        if (event.added) event.added.enterIndex = event.step;
      }
      for (const node of this.nodes) {
        if (node.enterIndex === undefined) node.enterIndex = node.order;
        node.exitIndex = node.enterIndex;
      }
      this.events.forEach((event, index) => {
        event.index = index;
      });
    } else {
      for (const node of this.nodes) {
        if (this.mcts) {
          this.events.push({ step: node.order, node, kind: "added" });
          continue;
        }
        this.events.push({ step: node.order, node, kind: "enter" });
        this.events.push({ step: node.exitOrder, node, kind: "exit" });
      }
      this.events.sort((a, b) => a.step - b.step);
      this.events.forEach((event, index) => {
        event.index = index;
        if (event.kind !== "exit") event.node.enterIndex = index;
        if (event.kind !== "enter") event.node.exitIndex = index;
      });
    }
    this.statsCache = null;
    this.principal = principalLine(this);
  }

  get lastIndex() {
    return this.events.length - 1;
  }

  // What `node` shows once the events up to `index` have happened:
  // {state: "unseen" | "open" | "done", value, partial, alpha, beta}.
  // An open node's alpha and beta are its window on entry, narrowed by the
  // values its finished children returned (MAX raises alpha, MIN lowers
  // beta), as the textbook's tables have them; a finished node's are the
  // window it returned with.
  view(node, index) {
    if (node.enterIndex > index) return { state: "unseen", value: null, partial: null, alpha: null, beta: null };
    if (node.exitIndex <= index) {
      return {
        state: "done",
        value: node.value,
        partial: null,
        alpha: this.hasWindows ? node.alphaOut : null,
        beta: this.hasWindows ? node.betaOut : null,
      };
    }
    let alpha = node.alphaIn;
    let beta = node.betaIn;
    let best = null;
    let sum = 0;
    for (const child of node.children) {
      if (child.exitIndex > index) break;
      const value = child.value;
      // The cut test comes before the window narrows: a child whose value
      // ends the node (v >= beta under MAX, v <= alpha under MIN) leaves the
      // window as it was (the review of 2026-12-07 saw "alpha 3 beta 2" on
      // MIN node 3 of the notes' tree, cut at its last child).
      if (node.player === "max") {
        best = best === null ? value : Math.max(best, value);
        if (alpha !== null && !(beta !== null && best >= beta)) alpha = Math.max(alpha, value);
      } else if (node.player === "min") {
        best = best === null ? value : Math.min(best, value);
        if (beta !== null && !(alpha !== null && best <= alpha)) beta = Math.min(beta, value);
      } else {
        sum += (child.probability ?? 0) * value;
        best = sum;
      }
    }
    return { state: "open", value: null, partial: best, alpha, beta };
  }

  // MCTS: every node's {visits, wins} after the playouts up to event
  // `index`, replayed from the log (the final statistics without one).
  statsAt(index) {
    const final = () => new Map(this.nodes.map((node) => [node, { visits: node.visits ?? 0, wins: node.wins ?? 0 }]));
    if (!this.log) return final();
    if (index >= this.lastIndex) return final();
    let cache = this.statsCache;
    if (!cache || cache.index > index) {
      cache = { index: 0, stats: new Map(this.nodes.map((node) => [node, { visits: 0, wins: 0 }])) };
    }
    for (let k = cache.index + 1; k <= index; k++) {
      const event = this.events[k];
      for (let node = event.node; node; node = node.parent) {
        const entry = cache.stats.get(node);
        entry.visits += 1;
        entry.wins += event.result;
      }
    }
    cache.index = index;
    this.statsCache = cache;
    return cache.stats;
  }

  // The path from the root to `node`, root first.
  lineage(node) {
    const line = [];
    for (let at = node; at; at = at.parent) line.unshift(at);
    return line;
  }

  // Effective branching factor (see branchingFactor) of the visited tree:
  // its nodes below the root over its levels (a chance event is a level,
  // as it is a row of the drawing; without chance nodes, levels = plies).
  // None for MCTS: its tree grows unevenly, towards the promising moves.
  get effectiveBranching() {
    if (this.mcts) return null;
    return branchingFactor(this.nodes.length - 1, this.levels);
  }
}

// MCTS statistics as Russell and Norvig's figure 5.10 writes them: wins/visits,
// the wins (MAX's reward sum) with one decimal at most, in the reader's
// decimal mark unless `code` (the code panel's point).
export function formatWinsVisits(node, stats = null, code = false) {
  const visits = stats ? stats.visits : node.visits;
  const won = stats ? stats.wins : node.wins;
  if (visits === null || won === null || visits === undefined) return "";
  const wins = Number.isInteger(won) ? String(won) : String(Number(won.toFixed(1)));
  return `${code ? wins : localNumber(wins)}/${visits}`;
}

// A child alpha-beta never searched, below the node that cut (`cutAt`).
// For a typed tree its whole subtree is known and kept (as ghosts too):
// decision levels alternate from MAX at the root, chance nodes take no ply.
function ghost(cutAt, move, subtree, above = cutAt, probability = null) {
  const leaf = typeof subtree === "number";
  const chance = isChance(subtree);
  const depth = above.depth + (above.player === "chance" ? 0 : 1);
  const node = {
    ghost: true,
    cutAt,
    parent: above,
    move,
    probability,
    path: above.path === "root" ? move : `${above.path}·${move}`,
    level: above.level + 1,
    depth,
    value: leaf ? subtree : null,
    player: chance ? "chance" : depth % 2 === 0 ? "max" : "min",
    hidden: subtree === null ? null : countLeaves(subtree),
    children: [],
  };
  if (!leaf && subtree !== null) {
    const children = Array.isArray(subtree) ? subtree : subtree.c || [];
    node.children = children.map((child, i) => ghost(cutAt, String(i + 1), child, node, chance ? Number(subtree.p[i]) : null));
  }
  return node;
}

function isChance(subtree) {
  return subtree !== null && typeof subtree === "object" && !Array.isArray(subtree) && Array.isArray(subtree.p);
}

// Every ghost of a subtree of ghosts, the top one included.
export function ghostCount(node) {
  return 1 + node.children.reduce((sum, child) => sum + ghostCount(child), 0);
}

// The subtree of game `tree` notation under child `move` ("1", "2", ...).
function childOf(subtree, move) {
  if (subtree === null || subtree === undefined || typeof subtree === "number") return null;
  const children = Array.isArray(subtree) ? subtree : subtree.c;
  if (!Array.isArray(children)) return null;
  const child = children[Number(move) - 1];
  return child === undefined ? null : child;
}

function countLeaves(subtree) {
  if (typeof subtree === "number") return 1;
  const children = Array.isArray(subtree) ? subtree : subtree && subtree.c;
  return Array.isArray(children) ? children.reduce((sum, child) => sum + countLeaves(child), 0) : 0;
}

// The principal line: from the root, the best move, then at every node its
// best move (as the server reports it, else the first child whose value is
// the node's). It ends at a chance node: no one chooses the dice, and a line
// drawn on through the likeliest outcome read as if the coin had been picked
// (a teacher's review, 2026-12-07); a chance node at the root opens on its
// likeliest outcome, the drawing's one way in.
function principalLine(trace) {
  const line = new Set([trace.root]);
  let node = trace.root;
  let first = true;
  while (node.children.length > 0) {
    if (node.player === "chance" && !first) break;
    let next;
    const best = first && trace.bestMove !== null ? trace.bestMove : node.bestMove;
    if (best !== null) next = node.children.find((child) => child.move === best);
    if (!next && node.player === "chance") {
      next = node.children.reduce((a, b) => ((b.probability ?? 0) > (a.probability ?? 0) ? b : a));
    }
    if (!next) next = node.children.find((child) => child.value === node.value) || node.children[0];
    line.add(next);
    node = next;
    first = false;
  }
  return line;
}

// The effective branching factor b*: the b with N = b + b^2 + ... + b^d,
// N the nodes visited below the root and d the depth reached (Russell and
// Norvig's definition, with the root left out of both sides), solved by
// bisection. Null when it means nothing (no depth, no nodes).
export function branchingFactor(belowRoot, depth) {
  if (!(depth >= 1) || !(belowRoot >= 1)) return null;
  const total = (b) => {
    let sum = 0;
    let power = 1;
    for (let i = 1; i <= depth; i++) {
      power *= b;
      sum += power;
    }
    return sum;
  };
  let low = 0;
  let high = Math.max(1, belowRoot);
  for (let i = 0; i < 100; i++) {
    const middle = (low + high) / 2;
    if (total(middle) < belowRoot) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}
