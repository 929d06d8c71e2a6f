// Predict, then reveal: the questions an exercise asks before a step of
// the search (the value a node will return, the leaves alpha-beta will
// never look at, the move MAX picks, who wins), when each is asked, and
// the check of an answer against the search's own trace, with the
// explanation built from that trace. No drawing and no page state here.

import { boundKind, boundMark, formatValue } from "./learn-model.js";
import { t } from "./i18n.js";

// A question as an exercise or an address writes it: "prune" (the leaves
// never evaluated, under the root or under "prune:2"), "move" (MAX's move),
// "winner" (-1/0/+1 trees: who wins with best play), "value:2·1" (what that
// node returns; "." may stand for "·" in an address).
export function parseQuestions(text) {
  if (!text) return [];
  const questions = [];
  for (const part of String(text).split(",")) {
    const [kind, rawPath] = part.trim().split(":");
    const path = rawPath ? rawPath.trim().replace(/\./g, "·") : null;
    if (kind === "prune") questions.push({ kind, path: path || "root" });
    else if (kind === "move" || kind === "winner") questions.push({ kind, path: "root" });
    else if (kind === "value" && path) questions.push({ kind, path });
  }
  return questions;
}

export function formatQuestions(questions) {
  return questions.map((q) => (q.kind === "value" || (q.kind === "prune" && q.path !== "root") ? `${q.kind}:${q.path.replace(/·/g, ".")}` : q.kind)).join(",");
}

// The trace node at `path` ("root", "2", "2·1"), or null.
export function nodeAt(trace, path) {
  return trace.nodes.find((node) => node.path === path) || null;
}

// The step at which a question is asked (the page stops there until it is
// answered or skipped): a node's value when the node is entered, the rest
// at the first step. Null when the trace has no such node.
export function askedAt(trace, question) {
  if (question.kind === "value" || question.kind === "prune") {
    const node = nodeAt(trace, question.path);
    if (!node) return null;
    return question.kind === "value" ? node.enterIndex : Math.max(0, node.enterIndex);
  }
  if ((question.kind === "move" || question.kind === "winner") && trace.mcts) return null;
  return 0;
}

// Whether a question makes sense for this trace (prune needs a search that
// prunes, and a typed tree whose pruned leaves are known).
export function applies(trace, question, typedTree) {
  if (trace.mcts) return false;
  if (question.kind === "prune") return typedTree && trace.hasWindows && nodeAt(trace, question.path) !== null;
  if (question.kind === "value") return nodeAt(trace, question.path) !== null;
  return trace.root.children.length > 0;
}

export function prompt(question) {
  const node = question.path === "root" ? t("node.root") : t("predict.node", { path: question.path });
  return t(`predict.ask.${question.kind}`, { node });
}

// The leaves below `path` that the search never evaluated: the pruned
// subtrees' leaves (ghosts), as paths.
export function prunedLeaves(trace, path) {
  const top = nodeAt(trace, path);
  const leaves = [];
  const ghostLeaves = (ghost) => {
    if (ghost.children.length === 0) leaves.push(ghost.path);
    else ghost.children.forEach(ghostLeaves);
  };
  const walk = (node) => {
    node.ghosts.forEach(ghostLeaves);
    node.children.forEach(walk);
  };
  if (top) walk(top);
  return leaves;
}

// The leaves a student may click for a prune question: every leaf below
// the node, visited or not.
export function candidateLeaves(trace, path) {
  const top = nodeAt(trace, path);
  const leaves = [];
  const walk = (node) => {
    if (node.children.length === 0 && node.ghosts.length === 0) leaves.push(node.path);
    node.children.forEach(walk);
  };
  if (top) walk(top);
  return [...leaves, ...prunedLeaves(trace, path)];
}

// Parses a typed value: "−3", "-3", "3.5", "+1".
export function parseValue(text) {
  const cleaned = String(text).trim().replace(/[−–]/g, "-").replace(",", ".");
  if (cleaned === "" || !/^[-+]?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

function nodeName(trace, node) {
  if (node === trace.root) return t("node.root");
  const who = node.kind === "terminal" ? t("node.leaf") : node.player === "chance" ? t("node.chance") : node.player.toUpperCase();
  return t("predict.named", { who, path: node.path });
}

// What an explanation may show while other questions wait. A node whose
// value a question still to come asks for is written "?", and so is a
// number copied from it (a bound, the root's value) wherever it appears:
// the feedback on one question must not answer the next one (the move
// MAX picks is worth the value of the node asked about later; a cut's
// alpha is that node's value too).
class Shown {
  // `answered`: the node the question answered is about, always shown.
  constructor(trace, hiddenPaths, answered) {
    this.answered = answered;
    this.paths = new Set(hiddenPaths);
    this.paths.delete(answered);
    this.values = [...this.paths].map((path) => nodeAt(trace, path)).filter(Boolean).map((node) => node.value);
    this.masked = false;
    this.rootLater = false;
    this.marksBounds = true;
  }

  // A node's own value: hidden, or copied from a hidden node below it
  // (a parent's value is one of its children's).
  node(node) {
    if (node.path === this.answered) return formatValue(node.value);
    if (this.paths.has(node.path)) {
      this.masked = true;
      return "?";
    }
    const below = [...this.paths].some((path) => node.path === "root" || path.startsWith(`${node.path}·`));
    return below ? this.number(node.value) : formatValue(node.value);
  }

  // A node's value with its bound's mark (≤5), unless hidden: "≤?" would
  // tell that the node was cut.
  bounded(node, trace) {
    const text = this.node(node);
    return text === "?" || !this.marksBounds ? text : `${boundMark(node, trace.hasWindows)}${text}`;
  }

  // A number that may be copied from a hidden node's value.
  number(value) {
    if (this.values.some((hidden) => Math.abs(hidden - value) < 1e-9)) {
      this.masked = true;
      return "?";
    }
    return formatValue(value);
  }
}

// How a node's value came from its children's, from the trace: a sentence
// that may start with the node's name ("the root"), so its first letter is
// made a capital.
function explainValue(trace, node, shown) {
  return capitalised(explainValueText(trace, node, shown));
}

function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function explainValueText(trace, node, shown) {
  if (node.children.length === 0) {
    return node.kind === "cutoff"
      ? t("predict.explain.eval", { node: nodeName(trace, node), value: shown.node(node) })
      : t("predict.explain.leaf", { node: nodeName(trace, node), value: shown.node(node) });
  }
  // A child's value that is a bound is written as one (≤5): it is what the
  // search returned, not the child's minimax value.
  const values = node.children.map((child) => shown.bounded(child, trace));
  let text;
  if (node.player === "chance") {
    const terms = node.children.map((child) => `${formatValue(child.probability ?? 0)} × ${shown.node(child)}`);
    text = t("predict.explain.chance", { node: nodeName(trace, node), terms: terms.join(" + "), value: shown.node(node) });
  } else {
    const op = node.player === "max" ? "max" : "min";
    // A node that returned a bound took the best of the moves it searched,
    // and its own minimax value is only known to lie beyond it.
    const kind = shown.marksBounds ? boundKind(node, trace.hasWindows) : null;
    const key = kind === null ? `predict.explain.${op}` : `predict.explain.${op}.${kind}`;
    text = t(key, { node: nodeName(trace, node), values: values.join(", "), value: shown.node(node) });
  }
  if (node.prunedAfter.length > 0) text += ` ${explainCut(trace, node, shown)}`;
  return text;
}

// Why a node stopped early (alpha-beta's test, with the trace's window).
function explainCut(trace, node, shown) {
  const moves = node.prunedAfter.join(", ");
  const one = node.prunedAfter.length === 1 ? ".one" : "";
  return node.player === "min"
    ? t(`predict.explain.cut.min${one}`, { value: shown.node(node), alpha: shown.number(node.alphaOut), moves })
    : t(`predict.explain.cut.max${one}`, { value: shown.node(node), beta: shown.number(node.betaOut), moves });
}

// Checks `answer` against the trace: {correct, text, marks}. For prune,
// `answer` is the Set of clicked leaf paths and marks says which were
// right, missed or wrong. `hidden` names the nodes whose values questions
// still to come ask for: the explanation writes them (and numbers copied
// from them) as "?", and says so. `rootLater`: a question about the root
// (the move MAX picks, who wins) is still to come, and a cut's reason
// ("MAX already has a better move elsewhere", with the root's bound) would
// answer it: the prune check then names the pruned leaves only; each
// cut's reason is shown at the step that makes it.
export function check(trace, question, answer, hidden = [], rootLater = false, pruneLater = false) {
  // A value question is about its node; the winner's answer is the root's value.
  const shown = new Shown(trace, hidden, question.kind === "value" || question.kind === "winner" ? question.path : null);
  shown.rootLater = rootLater;
  // A bound's mark tells which nodes were cut: not while a prune question
  // waits ("2: ≤2" answered it before it was asked: a review, 2026-12-07).
  shown.marksBounds = !pruneLater;
  const result = checkWith(trace, question, answer, shown);
  if (shown.masked && !result.invalid) result.text += ` ${t("predict.hidden")}`;
  return result;
}

function checkWith(trace, question, answer, shown) {
  if (question.kind === "value") {
    const node = nodeAt(trace, question.path);
    const given = parseValue(answer);
    if (given === null) return { correct: false, invalid: true, text: t("predict.invalid") };
    const correct = Math.abs(given - node.value) < 1e-9;
    return { correct, text: `${t(correct ? "predict.right" : "predict.wrong")} ${explainValue(trace, node, shown)}` };
  }
  if (question.kind === "move") {
    const correct = answer === trace.bestMove;
    const values = trace.root.children.map((child) => `${child.move}: ${shown.bounded(child, trace)}`).join(", ");
    return {
      correct,
      text: `${t(correct ? "predict.right" : "predict.wrong")} ${t("predict.explain.move", { move: trace.bestMove ?? "–", value: shown.number(trace.value), values })}`,
    };
  }
  if (question.kind === "winner") {
    const sign = Math.sign(trace.value);
    const correct = Number(answer) === sign;
    const who = t(sign > 0 ? "predict.winner.max" : sign < 0 ? "predict.winner.min" : "predict.winner.draw");
    const line = [...trace.principal].filter((node) => node !== trace.root).map((node) => node.move).join(" → ");
    // The root's value is the winner's answer itself (-1, 0 or +1): it is shown.
    return {
      correct,
      text: `${t(correct ? "predict.right" : "predict.wrong")} ${t("predict.explain.winner", { who, value: formatValue(trace.value), line })} ${explainValue(trace, trace.root, shown)}`,
    };
  }
  // prune
  const truth = new Set(prunedLeaves(trace, question.path));
  const chosen = answer instanceof Set ? answer : new Set();
  const marks = new Map();
  for (const path of truth) marks.set(path, chosen.has(path) ? "right" : "missed");
  for (const path of chosen) if (!truth.has(path)) marks.set(path, "wrong");
  const correct = [...marks.values()].every((mark) => mark === "right");
  const list = (kind) => [...marks].filter(([, mark]) => mark === kind).map(([path]) => path);
  const cutters = trace.nodes.filter((node) => node.prunedAfter.length > 0 && (question.path === "root" || node.path === question.path || node.path.startsWith(`${question.path}·`)));
  // Written only when said: writing it marks the "?" it would show, and the
  // note on "?" followed an answer that showed none (a review, 2026-12-07).
  const why = () => cutters.map((node) => capitalised(`${nodeName(trace, node)}: ${explainCut(trace, node, shown)}`)).join(" ");
  const parts = [t(correct ? "predict.right" : "predict.wrong")];
  parts.push(truth.size === 0 ? t("predict.prune.none") : t("predict.prune.truth", { leaves: [...truth].join(", ") }));
  if (list("missed").length > 0) parts.push(t("predict.prune.missed", { leaves: list("missed").join(", ") }));
  if (list("wrong").length > 0) parts.push(t("predict.prune.wrong", { leaves: list("wrong").join(", ") }));
  if (cutters.length > 0 && shown.rootLater) parts.push(t("predict.prune.why.later"));
  else if (cutters.length > 0) parts.push(why());
  return { correct, text: parts.join(" "), marks };
}
