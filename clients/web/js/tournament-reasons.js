// Why a tournament game ended, in the page's language. The referee writes
// its reasons in English from the templates of clients/tournament/reasons.py
// (the records, PGN and SGF files keep them so); this module recognises
// each template and says it with the page's texts (tournament-strings.js).
// The parts that quote an engine (its name, its error message, its move)
// stay as the engine wrote them; a reason this module does not know (an
// older record's, a new game's) is shown as written.
// tests/clients/tournament/test_web_page.py formats every template of
// reasons.py and checks that the Portuguese page translates it.

import { playerTitle } from "./i18n.js";
import { resultReason } from "./server-words.js";
import { tr } from "./tournament-strings.js";

const FIXED = {
  "adjudication: both engines agree the first player wins": "reason.first.wins",
  "adjudication: both engines agree the second player wins": "reason.second.wins",
  "adjudication: both engines see a draw": "reason.draw",
};
const CLEANUP = " (counted after a clean-up phase)";

// What an engine at fault did (the text after its name): [pattern, key, names of the groups].
const FAULTS = [
  [/^lost on time: answered after (\d+) ms with (\d+) ms left \(margin (\d+) ms\); it answered (.*) \((.*)\), the engine counting (\d+) ms of which (\d+) ms queued$/s, "reason.late.answer", ["elapsed", "budget", "margin", "move", "reason", "engine", "queued"]],
  [/^lost on time: answered after (\d+) ms with (\d+) ms left \(margin (\d+) ms\)$/s, "reason.late", ["elapsed", "budget", "margin"]],
  [/^gave no move within (\d+) ms \(watchdog\)(.*)$/s, "reason.nomove", ["ms", "detail"]],
  [/^did not answer within (\d+) ms \(watchdog\)(.*)$/s, "reason.noanswer", ["ms", "detail"]],
  [/^disconnected \((.*)\)$/s, "reason.disconnected", ["message"]],
  [/^broke the protocol: (.*)$/s, "reason.protocol", ["message"]],
  [/^answered with error (.*?): (.*)$/s, "reason.error", ["code", "message"]],
  [/^sent a malformed reply \((.*)\)$/s, "reason.malformed", ["error"]],
  [/^played an illegal move (.*) \(legal: (.*)\)$/s, "reason.illegal", ["move", "legal"]],
  [/^could not be reached \((.*)\)$/s, "reason.unreachable", ["error"]],
  [/^could not start when the tournament was resumed: (.*)$/s, "reason.cannotstart", ["why"]],
  [/^lost on time: its program gave no move by its deadline \((\d+) ms\), and its server offered (.*) in its place$/s, "reason.standin.ms", ["ms", "move"]],
  [/^lost on time: its program gave no move by its deadline, and its server offered (.*) in its place$/s, "reason.standin", ["move"]],
  [/^failed: it gave no move of its own (once|\d+ times) in this game, the last ending the game \(it crashed, answered an illegal move or garbage, or was silent at its deadline; its log says which\); its server's log: (.*)$/s, "reason.botfailed.why", ["count", "why"]],
  [/^failed: it gave no move of its own (once|\d+ times) in this game, the last ending the game \(it crashed, answered an illegal move or garbage, or was silent at its deadline; its log says which\)$/s, "reason.botfailed", ["count"]],
  [/^failed: the move played for it would have won the game, and a win must be the bot's own move \(it gave no move of its own (once|\d+ times) in this game; its log says why\); its server's log: (.*)$/s, "reason.standinwin.why", ["count", "why"]],
  [/^failed: the move played for it would have won the game, and a win must be the bot's own move \(it gave no move of its own (once|\d+ times) in this game; its log says why\)$/s, "reason.standinwin", ["count"]],
  [/^failed: it gave no move of its own in this game \((once|\d+ times) a move was played for it; its log says why\); its server's log: (.*)$/s, "reason.nevermoved.why", ["count", "why"]],
  [/^failed: it gave no move of its own in this game \((once|\d+ times) a move was played for it; its log says why\)$/s, "reason.nevermoved", ["count"]],
  [/^failed: its server answered engine_error \(the program crashed, hung, broke its protocol, answered an illegal move or was not up\) and offered (.*?) in its place; its server's log: (.*)$/s, "reason.failed.why", ["move", "why"]],
  [/^failed: its server answered engine_error \(the program crashed, hung, broke its protocol, answered an illegal move or was not up\) and offered (.*) in its place$/s, "reason.failed", ["move"]],
];

// "once" and "3 times" (FAULT_BOT_FAILED's counts) as numbers for the
// translations, which say them in their own words; other values as they are.
function count(value) {
  if (value === "once") return 1;
  const times = /^(\d+) times$/.exec(value ?? "");
  return times ? Number(times[1]) : value;
}

function fault(detail) {
  for (const [pattern, key, names] of FAULTS) {
    const match = pattern.exec(detail);
    if (match) return tr(key, Object.fromEntries(names.map((name, i) => [name, count(match[i + 1])])));
  }
  return null;
}

// A record's reason (`kind` as the record gives it: rules, adjudication or a
// fault's kind) in the page's language; `players` are the game's two names.
export function refereeReason(reason, kind, players = []) {
  const text = String(reason ?? "");
  if (FIXED[text]) return tr(FIXED[text]);
  const length = /^adjudication: maximum length of (\d+) plies$/.exec(text);
  if (length) return tr("reason.length", { limit: length[1] });
  if (kind === "rules") {
    const counted = text.endsWith(CLEANUP);
    const own = counted ? text.slice(0, -CLEANUP.length) : text;
    const said = resultReason(own, playerTitle);
    return counted ? `${said} ${tr("reason.cleanup")}` : said;
  }
  // A fault: the engine's name (the longer first, should one begin the other), then what it did.
  const names = [...players].map(String).sort((a, b) => b.length - a.length);
  for (const name of names) {
    if (!text.startsWith(`${name} `)) continue;
    const said = fault(text.slice(name.length + 1));
    if (said !== null) return `${name} ${said}`;
  }
  return text;
}
