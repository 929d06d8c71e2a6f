// The pseudocode beside the tree: Russell and Norvig's MINIMAX-DECISION,
// MAX-VALUE and MIN-VALUE, ALPHA-BETA-SEARCH, EXPECTIMINIMAX and
// MONTE-CARLO-TREE-SEARCH, in the notation of the lecture notes (the texts
// are in strings.js, key "code.<line>", one per language), and which line
// a step of the search executes, with the local variables there.

import { codeValue, cutTestFired, formatWinsVisits } from "./learn-model.js";
import { t } from "./i18n.js";

// The programs, as line keys; "" is a blank line. Indentation is part of
// the text. A line's key names what it does, so that a step can point at it.
const MINIMAX = [
  "mm.decision", "mm.decision.return", "",
  "max.head", "max.terminal", "max.cutoff", "max.init", "max.loop", "mm.max.update", "max.return", "",
  "min.head", "min.terminal", "min.cutoff", "min.init", "min.loop", "mm.min.update", "min.return",
];
const ALPHABETA = [
  "ab.search", "ab.search.call", "ab.search.return", "",
  "ab.max.head", "max.terminal", "max.cutoff", "max.init", "max.loop", "ab.max.update", "ab.max.cut", "ab.max.alpha", "max.return", "",
  "ab.min.head", "min.terminal", "min.cutoff", "min.init", "min.loop", "ab.min.update", "ab.min.cut", "ab.min.beta", "min.return",
];
const EXPECTIMINIMAX = [
  "em.head", "em.terminal", "em.cutoff", "em.max", "em.min", "em.chance",
];
const MONTE_CARLO = [
  "mcts.head", "mcts.tree", "mcts.loop", "mcts.select", "mcts.expand", "mcts.simulate", "mcts.backprop", "mcts.return",
];

// The program each search runs (negamax enters the same nodes as alpha-beta
// with the same windows from MAX's side, so its steps are shown there).
// `cutoff` false: a search of the whole tree, whose program has no
// CUTOFF-TEST line (the textbook's MINIMAX and ALPHA-BETA test TERMINAL-TEST
// alone; the cut-off replaces it only in a search with a depth limit): the
// last note's known gap showed it for whole-tree searches too.
export function programFor(algorithm, cutoff = true) {
  const keep = (lines) => (cutoff ? lines : lines.filter((key) => !key.endsWith(".cutoff")));
  const whole = cutoff ? "" : "-whole";
  if (algorithm === "minimax") return { name: `minimax${whole}`, lines: keep(MINIMAX) };
  if (algorithm === "expectiminimax") return { name: `expectiminimax${whole}`, lines: keep(EXPECTIMINIMAX) };
  if (algorithm === "mcts") return { name: "mcts", lines: MONTE_CARLO };
  return { name: `alphabeta${whole}`, lines: keep(ALPHABETA) };
}

// A node's path as the locals show it (the root in the page's language).
const at = (node) => (node.parent ? node.path : t("path.root"));

// The function a node's call runs: MAX-VALUE where MAX moves, MIN-VALUE where MIN does.
function side(node) {
  return node.player === "min" ? "min" : "max";
}

// {lines: [keys highlighted], locals: [[name, text]], returns} for the step
// at `index` of `trace`. `phase` is the MCTS playout's phase when stepping
// through one (select, expand, simulate, backprop), else null.
export function locate(trace, index, phase = null) {
  const event = trace.events[index];
  if (!event) return { lines: [], locals: [] };
  const program = programFor(trace.algorithm).name;
  const node = event.node;
  if (program === "mcts") return locateMcts(trace, event, phase);
  if (program === "expectiminimax") return locateExpecti(trace, event, index);
  const windows = program === "alphabeta" && trace.hasWindows;
  const locals = [];
  const window = (alpha, beta) => {
    if (windows && alpha !== null) locals.push(["α", codeValue(alpha)], ["β", codeValue(beta)]);
  };
  if (event.kind === "enter") {
    if (node === trace.root) {
      locals.push(["s", t("path.root")]);
      window(node.alphaIn, node.betaIn);
      return { lines: [program === "minimax" ? "mm.decision.return" : "ab.search.call"], locals };
    }
    locals.push(["s", node.path]);
    window(node.alphaIn, node.betaIn);
    if (node.kind === "terminal") return { lines: [`${side(node)}.terminal`], locals, returns: null };
    if (node.kind === "cutoff") return { lines: [`${side(node)}.cutoff`], locals, returns: null };
    locals.push(["v", side(node) === "max" ? "−∞" : "+∞"]);
    return { lines: [`${side(node)}.init`], locals };
  }
  // A node returns: its parent takes the value (the update line), unless
  // the node is the root (the search's answer). A node that cut returns
  // from inside its loop.
  if (node === trace.root && node.children.length === 0) {
    locals.push(["v", codeValue(node.value)]);
    return { lines: [`${side(node)}.${node.kind === "cutoff" ? "cutoff" : "terminal"}`], locals };
  }
  const parent = node.parent;
  if (!parent) {
    locals.push(["v", codeValue(node.value)]);
    if (trace.bestMove !== null) locals.push(["a", trace.bestMove]);
    return { lines: [program === "minimax" ? "mm.decision.return" : "ab.search.return"], locals };
  }
  const view = trace.view(parent, index);
  const last = parent.children[parent.children.length - 1] === node;
  const cuts = last && (parent.prunedAfter.length > 0 || cutTestFired(parent, trace.hasWindows));
  locals.push(["s", at(parent)], ["a", node.move]);
  locals.push(["v", codeValue(view.partial ?? node.value)]);
  if (windows && view.alpha !== null) {
    // A cut returns before the window changes: the window before this child's value.
    const before = cuts ? trace.view(parent, index - 1) : view;
    window(before.alpha, before.beta);
  }
  const who = side(parent);
  if (program === "minimax") return { lines: [`mm.${who}.update`], locals };
  if (cuts) return { lines: [`ab.${who}.update`, `ab.${who}.cut`], locals, cut: true };
  return { lines: [`ab.${who}.update`, who === "max" ? "ab.max.alpha" : "ab.min.beta"], locals };
}

function locateExpecti(trace, event, index) {
  const node = event.node;
  const locals = [];
  if (event.kind === "enter") {
    locals.push(["s", at(node)]);
    if (node.kind === "terminal") return { lines: ["em.terminal"], locals };
    if (node.kind === "cutoff") return { lines: ["em.cutoff"], locals };
    return { lines: [node.player === "chance" ? "em.chance" : `em.${side(node)}`], locals };
  }
  const parent = node.parent;
  if (!parent) {
    locals.push(["s", t("path.root")], ["v", codeValue(node.value)]);
    return { lines: [node.player === "chance" ? "em.chance" : `em.${side(node)}`], locals };
  }
  const view = trace.view(parent, index);
  locals.push(["s", at(parent)], [parent.player === "chance" ? "r" : "a", node.move]);
  if (parent.player === "chance" && node.probability !== null) locals.push(["P(r)", codeValue(node.probability)]);
  locals.push(["v", codeValue(view.partial ?? node.value)]);
  return { lines: [parent.player === "chance" ? "em.chance" : `em.${side(parent)}`], locals };
}

function locateMcts(trace, event, phase) {
  const node = event.node;
  const name = (key) => t(`code.var.${key}`);
  if (node === trace.root) return { lines: ["mcts.tree"], locals: [[name("tree"), t("path.root")]] };
  const locals = [[name("leaf"), at(node.parent)], [name("child"), node.path]];
  const lines = {
    select: ["mcts.select"],
    expand: ["mcts.expand"],
    simulate: ["mcts.simulate"],
    backprop: ["mcts.backprop"],
  }[phase] || ["mcts.select", "mcts.expand", "mcts.simulate", "mcts.backprop"];
  if (event.result !== undefined && event.result !== null) locals.push([name("result"), codeValue(event.result)]);
  if (trace.log) locals.push([t("path.root"), formatWinsVisits(trace.root, trace.statsAt(event.index).get(trace.root), true)]);
  return { lines, locals };
}
