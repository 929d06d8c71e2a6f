// Predict, then reveal: the questions an exercise asks before a step of
// the search (the value a node will return, the leaves alpha-beta will
// never look at, the move MAX picks, who wins), when each is asked, and
// the check of an answer against the search's own trace, with the
// explanation built from that trace. No drawing and no page state here.

import { formatValue } from "./learn-model.js";
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
  const node = question.path === "root" ? t("node.root") : question.path;
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
  return `${who} ${node.path}`;
}

// How a node's value came from its children's, from the trace: a sentence
// that may start with the node's name ("the root"), so its first letter is
// made a capital.
export function explainValue(trace, node) {
  const text = explainValueText(trace, node);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function explainValueText(trace, node) {
  if (node.children.length === 0) {
    return node.kind === "cutoff"
      ? t("predict.explain.eval", { node: nodeName(trace, node), value: formatValue(node.value) })
      : t("predict.explain.leaf", { node: nodeName(trace, node), value: formatValue(node.value) });
  }
  const values = node.children.map((child) => formatValue(child.value));
  let text;
  if (node.player === "chance") {
    const terms = node.children.map((child) => `${formatValue(child.probability ?? 0)} × ${formatValue(child.value)}`);
    text = t("predict.explain.chance", { node: nodeName(trace, node), terms: terms.join(" + "), value: formatValue(node.value) });
  } else {
    const op = node.player === "max" ? "max" : "min";
    text = t(`predict.explain.${op}`, { node: nodeName(trace, node), values: values.join(", "), value: formatValue(node.value) });
  }
  if (node.prunedAfter.length > 0) text += ` ${explainCut(trace, node)}`;
  return text;
}

// Why a node stopped early (alpha-beta's test, with the trace's window).
export function explainCut(trace, node) {
  const moves = node.prunedAfter.join(", ");
  return node.player === "min"
    ? t("predict.explain.cut.min", { value: formatValue(node.value), alpha: formatValue(node.alphaOut), moves })
    : t("predict.explain.cut.max", { value: formatValue(node.value), beta: formatValue(node.betaOut), moves });
}

// Checks `answer` against the trace: {correct, text, marks}. For prune,
// `answer` is the Set of clicked leaf paths and marks says which were
// right, missed or wrong.
export function check(trace, question, answer) {
  if (question.kind === "value") {
    const node = nodeAt(trace, question.path);
    const given = parseValue(answer);
    if (given === null) return { correct: false, invalid: true, text: t("predict.invalid") };
    const correct = Math.abs(given - node.value) < 1e-9;
    return { correct, text: `${t(correct ? "predict.right" : "predict.wrong")} ${explainValue(trace, node)}` };
  }
  if (question.kind === "move") {
    const correct = answer === trace.bestMove;
    const values = trace.root.children.map((child) => `${child.move}: ${formatValue(child.value)}`).join(", ");
    return {
      correct,
      text: `${t(correct ? "predict.right" : "predict.wrong")} ${t("predict.explain.move", { move: trace.bestMove ?? "–", value: formatValue(trace.value), values })}`,
    };
  }
  if (question.kind === "winner") {
    const sign = Math.sign(trace.value);
    const correct = Number(answer) === sign;
    const who = t(sign > 0 ? "predict.winner.max" : sign < 0 ? "predict.winner.min" : "predict.winner.draw");
    const line = [...trace.principal].filter((node) => node !== trace.root).map((node) => node.move).join(" → ");
    return {
      correct,
      text: `${t(correct ? "predict.right" : "predict.wrong")} ${t("predict.explain.winner", { who, value: formatValue(trace.value), line })} ${explainValue(trace, trace.root)}`,
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
  const why = cutters.map((node) => `${nodeName(trace, node)}: ${explainCut(trace, node)}`).join(" ");
  const parts = [t(correct ? "predict.right" : "predict.wrong")];
  parts.push(truth.size === 0 ? t("predict.prune.none") : t("predict.prune.truth", { leaves: [...truth].join(", ") }));
  if (list("missed").length > 0) parts.push(t("predict.prune.missed", { leaves: list("missed").join(", ") }));
  if (list("wrong").length > 0) parts.push(t("predict.prune.wrong", { leaves: list("wrong").join(", ") }));
  if (why) parts.push(why);
  return { correct, text: parts.join(" "), marks };
}
