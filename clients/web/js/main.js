// The page's controller: connects, starts games, lets the human and the
// engine take turns, shows the engine thinking, and keeps the move list,
// the evaluation graph and the position box up to date.

import { Connection, EngineError, errorText, serverUrl } from "./connection.js";
import { keyBelongsElsewhere, runShortcut } from "./keys.js";
import { drawGraph } from "./graph.js";
import { graphScore, noteIteration } from "./parity.js";
import { optionHelp, resultReason, searchReason, serverName } from "./server-words.js";
import { MIN_RATE_MS, firstPlayerNumber, formatChance, formatCount, formatRate, formatScore, formatTime, formatValue, unitName } from "./score.js";
import { uciToSan } from "./san.js";
import { looksLikePgn, parsePgn } from "./pgn.js";
import { KEPT_TAGS, SGF_LETTERS, readSgfGame, sgfEscape, sgfPoint, sgfRules } from "./sgf.js";
import { rescueFocus, watchFocus } from "./focus.js";
import { moveMark } from "./annotate.js";
import { applyStatic, has, onLanguageChange, playerTitle, t, wireLanguageMenu } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// Most rows kept in the info table (older ones scroll away).
const MAX_INFO_ROWS = 80;
// Default engine time per move, in seconds.
const DEFAULT_SECONDS = 1;
// `state.to_move` when dice are to be rolled (protocol.md, games of chance).
const CHANCE = "chance";

// The layout of one column (style.css, @media (max-width: 700px)).
const NARROW_SCREEN = "(max-width: 700px)";

const app = {
  conn: null,
  algorithmChosen: {}, // game name → the search the user chose for it (the menu's value)
  lines: null, // {position, moves}: the analysed lines' first moves, drawn as arrows
  linesThink: null, // the think whose lines the list shows (drawn again on a change of language)
  summary: null, // {info, think}: the report the summary shows (likewise)
  games: [],
  limits: {},
  state: null, // the server's latest `state`
  start: null, // {game, options, position} the current game began from
  sides: ["human", "engine"], // who plays each player index
  think: null, // {id, purpose: "play" | "analyse", generation, ply, toMove, done}
  generation: 0, // bumped by every new game and take-back: stale answers are ignored
  evals: [], // evals[ply] = {score, toMove} from the engine, for the graph and the move marks (parity.js picks the score)
  board: null,
  boardGame: null,
  manualFlip: false,
  moving: null, // a move on its way: a promise settled once its reply is shown
  line: [], // the game's moves as far as they have been played (the list shows them all)
  lineSan: [], // the same in SAN for chess (state.history_san), else a copy of line
  pendingPly: null, // the ply a click or arrow key is taking the board to
  analysing: false, // analysis follows the position until Stop
  analysedKey: null, // the position the last analysis started on
  reviewing: false, // a review is scoring every position of the line
  thinkStatus: () => "", // writes the Engine heading's status in the page's language
};

// ---------------------------------------------------------------------------
// Start-up.

// Reconnection: the first retry after this long, doubling up to the most.
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MOST_MS = 15000;
const TOKEN_KEY = "arena-token";
const GAME_KEY = "arena-game"; // this tab's game, restored by a reload
const PANEL_KEY = "arena-engine-panel"; // the last finished think's panel, restored with it

let reconnectDelay = RECONNECT_FIRST_MS;
let reconnectTimer = null;

function storedToken() {
  const fromUrl = new URLSearchParams(window.location.search).get("token");
  if (fromUrl) return fromUrl;
  try {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return "";
  }
}

// Connects (again), says hello (with the token if there is one) and starts
// a game; after a lost connection, restores the game from its start
// position and moves.
async function connect() {
  reconnectTimer = null;
  const conn = new Connection(serverUrl(window.location));
  let refused = false;
  conn.onClose = (event) => {
    if (app.conn === conn) app.conn = null;
    app.think = null;
    app.moving = null;
    updateButtons();
    if (event.code === 1008) {
      refused = true;
      askToken(event.reason);
    } else if (app.conn === null && !refused) {
      scheduleReconnect(event.reason || t("play.closed"));
    }
  };
  try {
    await conn.open();
  } catch (error) {
    scheduleReconnect(t("play.noserver", { message: error.message }));
    return;
  }
  const hello = { type: "hello", protocol: 1, client: "web GUI" };
  const token = storedToken();
  if (token) hello.token = token;
  let welcome;
  try {
    welcome = await conn.request(hello);
  } catch (error) {
    if (!refused && reconnectTimer === null) {
      setStatus(t("play.refused"), "bad");
      say(errorSaid(error), "error");
    }
    return;
  }
  app.conn = conn;
  reconnectDelay = RECONNECT_FIRST_MS;
  $("token-form").hidden = true;
  app.serverText = welcome.server;
  setStatus(serverName(welcome.server), "good");
  const first = app.games.length === 0;
  app.games = welcome.games.map((g) => ({ ...g, players: playerNames(g) }));
  app.limits = welcome.limits;
  if (first || !app.start) {
    fillGameMenu();
    const params = new URLSearchParams(window.location.search);
    applyUrlSettings(params);
    await startFromUrl(params);
    return;
  }
  // Reconnected: the same game, the same line, the same position shown.
  const shown = app.state ? app.state.history.length : 0;
  if (await startGame({ ...app.start, moves: app.line.slice(0, shown), browse: true }, true)) {
    say(() => t("play.reconnected"), "hint");
  }
}

function scheduleReconnect(reason) {
  if (reconnectTimer !== null) return;
  const seconds = (reconnectDelay / 1000).toFixed(1);
  setStatus(t("status.reconnecting", { seconds }), "bad");
  say(() => t("play.disconnected", { reason, seconds }), "error");
  reconnectTimer = setTimeout(connect, reconnectDelay);
  reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MOST_MS);
}

function askToken(reason) {
  setStatus(t("status.token"), "bad");
  say(() => t(reason ? "play.refused.reason" : "play.refused.token", { reason }), "error");
  $("token-form").hidden = false;
  $("token").focus();
}

// ?game=chess&side=1&time=2.5 (side: 0, 1, both or none; time in seconds
// for both sides, or time0 and time1): a set-up that can be bookmarked.
function applyUrlSettings(params) {
  const game = params.get("game");
  if (game && app.games.some((g) => g.name === game)) $("game").value = game;
  gameChosen();
  const side = params.get("side");
  if (side && [...$("side").options].some((option) => option.value === side)) $("side").value = side;
  readSides();
  for (const player of [0, 1]) {
    const seconds = params.get(`time${player}`) ?? params.get("time");
    if (seconds !== null && Number(seconds) > 0) $(`time-${player}`).value = seconds;
  }
  const algorithm = params.get("algorithm");
  if (algorithm && [...$("algorithm").options].some((option) => option.value === algorithm)) {
    $("algorithm").value = algorithm;
    rememberAlgorithm();
  }
  applyUrlOptions(params);
}

// The game's options from the address, each as its own parameter
// (?game=go&size=19&komi=6.5) or all together as the Learn page writes them
// (options={"size":19}); a parameter the game has no option for is ignored,
// and the server checks the values as it checks the form's.
function applyUrlOptions(params) {
  let given = {};
  const json = params.get("options");
  if (json) {
    try {
      const parsed = JSON.parse(json);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) given = parsed;
      else throw new Error("not an object");
    } catch {
      say(() => t("play.url.options.bad", { options: json }), "error");
    }
  }
  for (const input of $("options").querySelectorAll("input")) {
    const value = params.has(input.name) ? params.get(input.name) : given[input.name];
    if (value === undefined || value === null) continue;
    if (input.dataset.kind === "boolean") input.checked = value === true || /^(1|true|yes|on)$/i.test(String(value));
    else input.value = Array.isArray(value) ? value.join(" ") : String(value);
  }
}

// The first game: the form's, from the address's start position and moves
// if it has them (?game=chess&position=<FEN>&moves=e2e4 e7e5, as the Learn
// page's link to this page writes them).
async function startFromUrl(params) {
  // A reload keeps the game this tab was playing, the moves played since
  // the page opened included (it started the address's game again, the
  // moves lost without a word: reviews of 2026-12-07), and so do the
  // browser's Back and Forward and an address that names no game (the
  // Learn page's "<- Play": a game left for the Learn page was lost, a
  // review of 2026-12-07); an address that names a game starts it.
  const comeBack = reloaded() || navigation() === "back_forward" || !namesGame(params);
  const saved = comeBack ? savedGame() : null;
  if (saved && (!params.get("game") || params.get("game") === saved.game) && app.games.some((g) => g.name === saved.game)) {
    const panel = savedPanel(); // read first: starting the game clears the panel
    $("game").value = saved.game;
    gameChosen();
    applyUrlOptions(new URLSearchParams({ options: JSON.stringify(saved.options || {}) }));
    restoreTimes(saved.times);
    // Who plays, as the tab last had it (the Learn page's link names no
    // side, and a side changed after the page opened is the player's: the
    // engine took over a game played for both sides).
    if ([...$("side").options].some((option) => option.value === saved.side)) {
      $("side").value = saved.side;
      readSides();
    }
    if (await startGame({ game: saved.game, options: saved.options || {}, position: saved.position, seed: saved.seed ?? null, moves: saved.moves }, false)) {
      restoreEvals(saved.evals, saved.moves.length);
      saveGame(app.state); // with the scores: a second reload had lost them (a review, 2026-12-07)
      restorePanel(panel, saved.game, saved.moves);
      const shown = Number.isInteger(saved.ply) ? saved.ply : saved.moves.length;
      if (shown >= 0 && shown < saved.moves.length) await goToPly(shown);
      say(() => t(reloaded() ? "play.restored" : "play.restored.back"), "hint");
      return;
    }
  }
  const position = params.get("position");
  const moves = (params.get("moves") || "").split(/[\s,]+/).filter(Boolean);
  if (!position && moves.length === 0) {
    await newGameFromForm();
    return;
  }
  const info = currentGameInfo();
  if (!(await startGame({ game: info.name, options: readOptions(), position: position || null, moves }, false))) {
    await newGameFromForm(); // the server said why; the usual start instead
  }
}

function fillGameMenu() {
  const menu = $("game");
  const previous = menu.value;
  menu.replaceChildren(...app.games.map((g) => new Option(gameTitle(g), g.name)));
  if (previous && app.games.some((g) => g.name === previous)) menu.value = previous;
}

function currentGameInfo() {
  return app.games.find((g) => g.name === $("game").value) || app.games[0];
}

// The game menu changed: rebuild the options, sides and times for it.
function gameChosen() {
  const info = currentGameInfo();
  buildOptions(info);
  // A word on games that are not what their name suggests (the exercise tree).
  const note = `game.note.${info.name}`;
  $("game-note").hidden = !has(note);
  $("game-note").textContent = has(note) ? t(note) : "";
  $("pgn-hint").hidden = info.name !== "chess";
  // Only Connect Four's board answers digit keys (a column each).
  $("footer-digits").hidden = info.name !== "connect4";
  const side = $("side");
  const previous = side.value || "0";
  side.replaceChildren(
    // In backgammon the opening roll decides who moves first: no side is named first.
    new Option(info.name === "backgammon" ? title(info.players[0]) : t("play.side.first", { name: title(info.players[0]) }), "0"),
    new Option(title(info.players[1]), "1"),
    new Option(t("play.side.both"), "both"),
    new Option(t("play.side.none"), "none"),
  );
  side.value = previous;
  const times = $("times");
  const old = [...times.querySelectorAll("input")].map((input) => input.value);
  times.replaceChildren(...info.players.map((name, index) => {
    const label = document.createElement("label");
    label.textContent = `${t("play.time.as", { name: title(name) })} `;
    const input = document.createElement("input");
    Object.assign(input, { type: "number", min: "0.05", step: "0.05", id: `time-${index}`, value: old[index] || String(DEFAULT_SECONDS) });
    input.max = String((app.limits.max_movetime_ms || 600000) / 1000);
    label.append(input);
    return label;
  }));
  fillAlgorithms(info);
  readSides();
}

// The searches the server offers for the game, its default first; servers
// that do not say (before protocol 0.3) get no menu and their default.
// The menu shows the search chosen for this game, else the game's default:
// a choice made for Go (mcts) carried over to chess, whose default is
// alphabeta, and Go got chess's choice (a review, 2026-12-07).
function fillAlgorithms(info) {
  const menu = $("algorithm");
  const names = Array.isArray(info.algorithms) ? info.algorithms : [];
  menu.replaceChildren(...names.map((name, index) => new Option(index === 0 ? t("play.algorithm.default", { name }) : name, name)));
  const chosen = app.algorithmChosen[info.name];
  if (names.includes(chosen)) menu.value = chosen;
  $("algorithm-label").hidden = names.length === 0;
  updateLinesChoice(info);
}

// Searches that report one line whatever multipv asks (protocol.md, think):
// their Lines menu is off, saying why (a review of 2026-12-07 chose 3 lines
// for backgammon and got one, without a word).
const SINGLE_LINE_SEARCHES = new Set(["expectiminimax"]);

function updateLinesChoice(info) {
  const algorithm = chosenAlgorithm() ?? ((info && info.algorithms) || [])[0];
  const single = SINGLE_LINE_SEARCHES.has(algorithm);
  const menu = $("multipv");
  menu.disabled = single;
  // The key, not only the text: a change of language titles it again.
  menu.dataset.i18nTitle = single ? "play.lines.single" : "play.lines.title";
  menu.title = t(menu.dataset.i18nTitle);
}

// The user's pick of a search, kept for the game it was made for.
function rememberAlgorithm() {
  const game = $("game").value;
  if (game) app.algorithmChosen[game] = $("algorithm").value;
}

// The search to name in a think: none for the game's default (the first),
// which the server uses anyway.
// Whether the next search of `game` is a Monte Carlo one (it reports
// playouts and chances of winning): the chosen search, else the game's default.
function expectsPlayouts(game) {
  if (!game) return false;
  const info = gameInfo(game);
  return (chosenAlgorithm() ?? (info.algorithms || [])[0]) === "mcts";
}

function chosenAlgorithm() {
  const menu = $("algorithm");
  return $("algorithm-label").hidden || menu.selectedIndex <= 0 ? null : menu.value;
}

function buildOptions(info) {
  const fieldset = $("options");
  fieldset.replaceChildren();
  const legend = document.createElement("legend");
  legend.textContent = t("learn.options");
  fieldset.append(legend);
  const names = Object.keys(info.options);
  fieldset.hidden = names.length === 0;
  for (const name of names) {
    const value = info.options[name];
    const label = document.createElement("label");
    label.title = optionHelp(info.option_help[name]);
    // The option's name in the page's language where the table has one; the
    // protocol's own name (used in addresses and by `arena`) is its title.
    const word = has(`option.name.${name}`) ? t(`option.name.${name}`) : name;
    const named = document.createElement("span");
    named.textContent = `${word} `;
    if (word !== name) named.title = name;
    label.append(named);
    const input = document.createElement("input");
    input.name = name;
    input.dataset.kind = Array.isArray(value) ? "list" : typeof value;
    if (typeof value === "boolean") {
      input.type = "checkbox";
      input.checked = value;
    } else if (typeof value === "number") {
      input.type = "number";
      input.step = "any"; // else a fractional default (Go's komi 7.5) fails the form's validation
      input.value = String(value);
    } else {
      input.value = Array.isArray(value) ? value.join(" ") : String(value);
    }
    label.append(input);
    if (info.option_help[name]) {
      const help = document.createElement("small");
      help.textContent = ` ${optionHelp(info.option_help[name])}`;
      label.append(help);
    }
    fieldset.append(label);
  }
}

function readOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("input")) {
    const kind = input.dataset.kind;
    if (kind === "boolean") options[input.name] = input.checked;
    else if (kind === "number") options[input.name] = Number(input.value);
    else if (kind === "list") options[input.name] = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
    else options[input.name] = input.value;
  }
  return options;
}

function readSides() {
  const value = $("side").value;
  app.sides = {
    0: ["human", "engine"],
    1: ["engine", "human"],
    both: ["human", "human"],
    none: ["engine", "engine"],
  }[value] || ["human", "engine"];
}

function movetimeMs(player) {
  const seconds = Number($(`time-${player}`)?.value);
  const ms = Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : DEFAULT_SECONDS * 1000;
  return Math.min(ms, app.limits.max_movetime_ms || ms);
}

// ---------------------------------------------------------------------------
// Games.

async function newGameFromForm() {
  const info = currentGameInfo();
  // A half-typed move of the game before is no move of this one (a review,
  // 2026-12-07: "3" stayed in the box after n).
  $("move-input").value = "";
  return startGame({ game: info.name, options: readOptions(), position: null, moves: [] }, false);
}

// Starts a game on the server. keepEvals: a take-back keeps the graph's
// earlier points. accept(state), if given, may refuse the resulting
// position (the server has it, but the page does not show it): then the
// answer is "skipped". Otherwise true if the server accepted the game.
async function startGame(spec, keepEvals, accept = null) {
  if (!app.conn) return false;
  const generation = ++app.generation;
  await cancelThink();
  const message = { type: "new_game", game: spec.game, options: spec.options };
  if (spec.position !== null && spec.position !== undefined) message.position = spec.position;
  if (spec.moves.length > 0) message.moves = spec.moves;
  // The game's dice seed again on a take back, a step back or a reload: a
  // roll is the seed's at its place in the game, so the rolls after a take
  // back are the ones the game had (a review, 2026-12-07: each take back drew
  // new dice, and a player could take moves back until a roll suited them).
  if (spec.seed !== null && spec.seed !== undefined) message.seed = spec.seed;
  let state;
  try {
    state = await app.conn.request(message);
  } catch (error) {
    if (app.conn) say(errorSaid(error), "error");
    return false;
  }
  // Another game was asked for meanwhile: its answer, not this one, is shown.
  if (generation !== app.generation) return false;
  if (accept && !accept(state)) return "skipped";
  if (!spec.browse) {
    // Another game or start position: the panel kept for a reload is not of
    // this game (a review of 2026-12-07: after a FEN was loaded, a reload
    // showed the search of the game before it).
    forgetPanel();
    // The start as the server wrote it back, when it is the position sent
    // (no moves after it): a pasted SGF or any other notation the server
    // reads becomes its board string, which the records are written from
    // (a pasted SGF was exported as "AB[undefineda]", its stones lost and
    // every move of the wrong colour: a review, 2026-12-07).
    const sent = message.position ?? null;
    const start = sent !== null && spec.moves.length === 0 ? state.position : sent;
    app.start = { game: state.game, options: state.options, position: start, tags: spec.tags ?? null, seed: state.seed ?? null };
    app.evals = keepEvals ? app.evals.slice(0, state.history.length + 1) : [];
    // The line is the game as it now stands: with the scores kept above,
    // the position taken back to keeps its own (a review of 2026-12-07: a
    // take back erased the review's mark and point of the move before).
    app.line = state.history.slice();
    app.lineSan = (state.history_san || state.history).slice();
    if (!keepEvals) app.analysing = false;
  }
  clearThinkPanel(state.game);
  say("");
  $("board-note").textContent = "";
  await setState(state);
  return true;
}

// The game of this tab, kept for a reload (sessionStorage: this tab only).
function saveGame(state) {
  if (!app.start) return;
  // With the scores of the graph and the engine's times: a reload lost both
  // (a review, 2026-12-07).
  const times = [0, 1].map((player) => $(`time-${player}`)?.value ?? null);
  // The whole line and the ply shown: a reload while browsing kept only the
  // moves up to the position shown, and the engine answered there (a
  // review, 2026-12-07).
  const line = isPrefix(state.history, app.line) ? app.line : state.history;
  const saved = { game: app.start.game, options: app.start.options, position: app.start.position, seed: app.start.seed ?? null, moves: line, ply: state.history.length, evals: app.evals, times, side: $("side").value };
  try {
    sessionStorage.setItem(GAME_KEY, JSON.stringify(saved));
  } catch {
    // storage full or refused: a reload starts a new game, as before
  }
}

// The engine's times a reload keeps (each a positive number of seconds).
function restoreTimes(times) {
  if (!Array.isArray(times)) return;
  times.forEach((value, player) => {
    const input = $(`time-${player}`);
    if (input && typeof value === "string" && Number(value) > 0) input.value = value;
  });
}

// The graph's scores a reload keeps: one per position of the game at most,
// each as the page wrote it ({score, toMove, chance}) or none.
function restoreEvals(evals, plies) {
  if (!Array.isArray(evals)) return;
  app.evals = evals.slice(0, plies + 1).map((entry) =>
    entry && typeof entry === "object" && entry.score && typeof entry.score === "object" ? entry : undefined);
  if (app.state) renderGraph(app.state);
}

// The engine panel of the last finished think: its reports (the table's
// rows and the summary, the answer last) and its lines. A reload on the
// player's turn showed an empty panel: the engine's depth, score and line
// for the move it had just played were gone (a review, 2026-12-07).
function savePanel(think) {
  const kept = { purpose: think.purpose, ply: think.ply, toMove: think.toMove, position: think.position, game: think.game };
  // The moves before the searched position, so that a reload shows the panel
  // only with a game that has them.
  const before = app.state ? app.state.history.slice(0, think.ply) : [];
  const saved = { think: kept, before, reports: think.reports.slice(-MAX_INFO_ROWS), lines: think.lines ?? null };
  try {
    sessionStorage.setItem(PANEL_KEY, JSON.stringify(saved));
  } catch {
    // storage full or refused: a reload shows an empty panel, as before
  }
}

function forgetPanel() {
  try {
    sessionStorage.removeItem(PANEL_KEY);
  } catch {
    // refused: nothing kept either
  }
}

function savedPanel() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(PANEL_KEY) || "null");
    const think = saved?.think;
    if (think && typeof think.game === "string" && typeof think.position === "string" && Array.isArray(saved.reports)) return saved;
  } catch {
    // unreadable: none
  }
  return null;
}

// Draws a saved panel again, unless a search has begun since the reload
// (the engine's turn: its own reports replace it).
function restorePanel(saved, game, moves) {
  if (!saved || saved.think.game !== game || app.think) return;
  const before = Array.isArray(saved.before) ? saved.before : null;
  if (!before || before.length > moves.length || before.some((move, ply) => move !== moves[ply])) return;
  const reports = saved.reports.filter((entry) => entry && typeof entry.info === "object" && entry.info && typeof entry.info.depth === "number" && Array.isArray(entry.info.pv) && entry.info.score && typeof entry.info.score === "object");
  if (reports.length === 0) return;
  const think = { ...saved.think, lines: null, pending: null, expectedLines: 1, reports: [] };
  for (const entry of reports) showInfo(entry.info, think, entry.final === true);
  const last = reports[reports.length - 1];
  if (last.final === true && typeof last.info.move === "string") {
    showThinkStatus(() => t("play.best", { move: movesText(think, [last.info.move]), reason: searchReason(last.info.reason) }));
  }
  if (Array.isArray(saved.lines) && saved.lines.some((line) => line && Array.isArray(line.pv))) {
    think.lines = saved.lines;
    drawLines(think);
  }
  try {
    sessionStorage.setItem(PANEL_KEY, JSON.stringify(saved)); // starting the game forgot it
  } catch {
    // refused: the next reload shows an empty panel
  }
}

// How this page was reached: "navigate", "reload" or "back_forward".
function navigation() {
  const [entry] = performance.getEntriesByType("navigation");
  return entry?.type ?? "navigate";
}

function reloaded() {
  return navigation() === "reload";
}

// Whether the address says which game to show (?game=, ?position=, ?moves=).
function namesGame(params) {
  return ["game", "position", "moves"].some((name) => params.has(name));
}

function savedGame() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(GAME_KEY) || "null");
    if (saved && typeof saved.game === "string" && Array.isArray(saved.moves)) return saved;
  } catch {
    // unreadable: none
  }
  return null;
}

async function setState(state) {
  // Notes and messages describe a position: a new one clears them.
  if (!app.state || app.state.position !== state.position || app.state.history.length !== state.history.length) {
    $("board-note").textContent = "";
  }
  app.state = state;
  saveGame(state);
  if (!isPrefix(state.history, app.line)) {
    // A move away from the listed line: it replaces the rest of the line (and
    // the scores of positions that are no longer in it), and the page says
    // so (a review of 2026-12-07: the later moves went without a word).
    const dropped = app.line.length - (state.history.length - 1);
    if (dropped > 0 && isPrefix(state.history.slice(0, -1), app.line)) {
      say(() => t("play.line.replaced", { count: dropped }), "hint");
    }
    app.line = state.history.slice();
    app.lineSan = (state.history_san || state.history).slice();
    app.evals = app.evals.slice(0, state.history.length);
  } else if (state.history.length === app.line.length) {
    app.lineSan = (state.history_san || state.history).slice();
  }
  if (app.boardGame !== state.game) {
    const create = await boardModule(state.game);
    // A newer state came while the board's module loaded (the Game menu
    // arrowed through quickly): it draws on its own board; this one would
    // have been drawn with the other game's state (a review of 2026-12-07:
    // "viewBox 0 0 NaN 66" and a TypeError in the checkers board).
    if (app.state !== state) return;
    $("board-note").textContent = "";
    app.board = create($("board"), { play: humanMove, note: (text) => { $("board-note").textContent = text; } });
    app.boardGame = state.game;
  }
  render();
  scheduleEngine();
}

// Brings `item` into view inside its scrolling `box` only.
function scrollWithin(box, item) {
  const shown = box.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < shown.top) box.scrollTop -= shown.top - at.top;
  else if (at.bottom > shown.bottom) box.scrollTop += at.bottom - shown.bottom;
}

// The games with a board of their own in boards/; any other game gets the
// generic one without a request for a file that is not there (a 404 in the
// console for a new game, a contributor's review of 2026-12-07).
const DRAWN_BOARDS = new Set(["backgammon", "checkers", "chess", "connect4", "go", "nim", "othello", "tictactoe"]);

async function boardModule(name) {
  if (DRAWN_BOARDS.has(name) && /^[a-z0-9_]+$/.test(name)) {
    try {
      return (await import(`./boards/${name}.js`)).default;
    } catch {
      // no board drawn for this game yet: the generic one plays it too
    }
  }
  return (await import("./boards/generic.js")).default;
}

// Whether the board shows an earlier position of the listed line.
function browsing() {
  return Boolean(app.state && app.state.history.length < app.line.length);
}

function positionKey(state) {
  return `${state.history.length} ${state.position}`;
}

function scheduleEngine() {
  const state = app.state;
  if (state && state.result && !app.think && app.analysing && app.analysedKey !== positionKey(state)) {
    // The game ended on a move played by hand during an analysis: the
    // panel's lines were the position before's ("Best a3 (proven)" beside
    // "X wins": a review, 2026-12-07).
    clearThinkPanel(state.game);
    app.analysedKey = positionKey(state);
  }
  if (!state || state.result || app.think || app.reviewing) return;
  if (browsing()) {
    // Stepping through the game: the engine does not play, analysis follows.
    if (app.analysing && state.to_move !== CHANCE && app.analysedKey !== positionKey(state)) startThink("analyse");
    return;
  }
  if (state.to_move === CHANCE) rollDice();
  else if (app.sides[state.to_move] === "engine") startThink("play");
  else if (app.analysing && app.analysedKey !== positionKey(state)) startThink("analyse");
}

function isPrefix(short, long) {
  return short.length <= long.length && short.every((move, i) => move === long[i]);
}

// Shows the position after `ply` moves of the listed line (0: the start), by
// starting the game again from its start position and those moves.
async function goToPly(ply) {
  if (!app.start || !app.state || ply < 0 || ply > app.line.length) return;
  if (ply === (app.pendingPly ?? app.state.history.length)) return;
  app.pendingPly = ply;
  try {
    await startGame({ ...app.start, moves: app.line.slice(0, ply), browse: true }, true);
  } finally {
    if (app.pendingPly === ply) app.pendingPly = null;
  }
}

function stepPly(delta) {
  if (!app.state) return;
  goToPly((app.pendingPly ?? app.state.history.length) + delta);
}

// Games of chance: the server rolls its seeded dice whenever a roll is due,
// for the engine and the human alike (the roll shows in the move list).
async function rollDice() {
  const generation = app.generation;
  let state;
  try {
    state = await app.conn.request({ type: "roll" });
  } catch (error) {
    if (generation === app.generation && app.conn) say(errorSaid(error), "error");
    return;
  }
  if (generation === app.generation) await setState(state);
}

// A click or typed move from the user.
// Resign back to its first question (see its click handler).
function disarmResign() {
  if (!$("resign").classList.contains("confirm")) return;
  $("resign").classList.remove("confirm");
  $("resign").textContent = t("play.resign");
}

async function humanMove(move, typed = false) {
  // A move typed while the one before it is still on its way waits for it,
  // and is then checked against the position that one leads to: a second
  // move typed at once was dropped without a word (a fresh-clone CI run,
  // loaded, saw Connect Four's third typed move lost). A click is not
  // queued: a double click would play twice.
  while (typed && app.moving) await app.moving;
  const state = app.state;
  if (!state || !app.conn) return;
  if (app.think && app.think.purpose === "play") {
    say(() => t("play.engine.thinking"), "error");
    return;
  }
  if (!state.result && app.sides[state.to_move] === "engine") {
    say(() => t("play.engine.turn", { name: title(playerName(state.to_move)) }), "error");
    return;
  }
  if (app.think) await cancelThink(); // analysis restarts on the new position
  await sendMove(move);
}

async function sendMove(move) {
  // One move at a time: a second click before the reply would otherwise be
  // played for whoever is to move next (the engine's side).
  if (app.moving) return;
  let settled;
  const moving = new Promise((resolve) => {
    settled = resolve;
  });
  app.moving = moving;
  try {
    const generation = app.generation;
    let state;
    try {
      state = await app.conn.request({ type: "move", move });
    } catch (error) {
      if (generation === app.generation && app.conn) say(errorSaid(error), "error");
      return;
    }
    if (generation !== app.generation) return;
    say("");
    await setState(state);
  } finally {
    if (app.moving === moving) app.moving = null;
    settled();
  }
}

// Takes back the last move; with one human side, as many more as it takes to
// give the human the move again (rolls count as moves in games of chance).
async function takeBack() {
  const state = app.state;
  if (!state || state.history.length === 0 || app.reviewing) return;
  const humans = [0, 1].filter((player) => app.sides[player] === "human");
  const wanted = (next) => next.to_move !== CHANCE && (humans.length !== 1 || next.to_move === humans[0]);
  const history = state.history;
  for (let count = 1; count <= history.length; count++) {
    const spec = { ...app.start, moves: history.slice(0, history.length - count) };
    const accepted = await startGame(spec, true, count === history.length ? null : wanted);
    if (accepted === "skipped") continue;
    // Said to a screen reader too: its live line still read the engine's
    // last move after two take backs (a review of 2026-12-07).
    if (accepted) $("announce").textContent = t("play.announce.takeback", { count, plies: spec.moves.length });
    return;
  }
}

// The longest PGN paste read: a game of the server's max_moves with long
// comments fits many times over (40 games, 357 KB, loaded well); beyond it
// the page stalled for seconds on the text alone (a review, 2026-12-07).
const MAX_PGN_CHARS = 1_000_000;

async function loadPosition() {
  const info = currentGameInfo();
  const position = $("position").value.trim();
  if (position === "") {
    say(() => t("play.load.empty"), "error");
    return;
  }
  if (info.name === "chess" && looksLikePgn(position)) {
    if (position.length > MAX_PGN_CHARS) {
      say(() => t("play.load.long", { count: position.length, max: MAX_PGN_CHARS }), "error");
      return;
    }
    await loadPgn(position);
    return;
  }
  // A position longer than the server takes is refused here with the
  // limit: sent, a frame beyond max_message_bytes closed the connection,
  // and the page said only "Reconnected" (a review of 2026-12-07).
  const most = app.limits.max_position_chars;
  if (typeof most === "number" && position.length > most) {
    say(() => t("play.load.long", { count: position.length, max: most }), "error");
    return;
  }
  if (info.name === "go") {
    const restore = takeSgfRules(position);
    const record = readSgfGame(position);
    const loaded = record !== null
      ? await loadSgf(record)
      : await startGame({ game: info.name, options: readOptions(), position, moves: [] }, false);
    if (loaded === true && record === null) say(() => t("play.loaded"), "hint");
    // A record refused leaves the options as they were, for the board still
    // shown (a review of 2026-12-07: the next New game took its size).
    if (loaded === false) restore();
    return;
  }
  // A Connect Four position is the moves from the empty board: loaded as
  // those moves, so the list steps through them (a review of 2026-12-07:
  // "4453" became a start position with nothing to step back to). The
  // server reads it as a position first, unshown: its refusal names the
  // move and the full column, where the moves' would say only "not legal".
  if (info.name === "connect4" && /^[1-9]+$/.test(position)) {
    const options = readOptions();
    const checked = await startGame({ game: info.name, options, position, moves: [] }, false, () => false);
    if (checked !== "skipped") return;
    if (await startGame({ game: info.name, options, position: null, moves: [...position] }, false)) {
      say(() => t("play.loaded"), "hint");
    }
    return;
  }
  if (await startGame({ game: info.name, options: readOptions(), position, moves: [] }, false)) {
    say(() => t("play.loaded"), "hint");
  }
}

// A pasted SGF game: its setup as the start and its main line as the moves,
// both sides to the human and the game reviewed, as a pasted PGN is. The
// setup goes to the server first, alone, so that the start is kept in the
// server's board notation (which the SGF export writes its stones from).
// Whether it loaded: true, false (refused: who plays is left as it was), or
// "setup" (the start position loaded, its moves refused).
async function loadSgf(record) {
  const side = $("side").value;
  $("side").value = "both"; // before the game starts: the engine must not move in it
  readSides();
  const refused = () => {
    $("side").value = side;
    readSides();
    return false;
  };
  let start = null;
  if (record.setup !== null) {
    if (!(await startGame({ game: "go", options: readOptions(), position: record.setup, moves: [] }, false))) return refused();
    start = app.start.position;
  }
  // The moves refused after the setup loaded: the setup is the game now.
  if (!(await startGame({ game: "go", options: readOptions(), position: start, moves: record.moves, tags: record.tags }, false))) return start === null ? refused() : "setup";
  await reviewGame(); // the review's steps clear the message line: say it after
  const count = record.moves.length;
  say(() => t(count === 1 ? "play.sgf.loaded.one" : "play.sgf.loaded", { count }), "hint");
  return true;
}

// A pasted SGF brings its board size and komi (SZ, KM) into the options,
// as GTP's loadsgf does: a 13x13 record was refused on the 9x9 board until
// the size was changed by hand (a review, 2026-12-07). A record with no SZ
// is 19x19, as SGF says, and FF[1]'s long names count (SiZe[13]): a regex
// for "SZ[" missed both (a review of the same day). A record without KM
// keeps the komi set. The function that puts the options back is returned.
function takeSgfRules(text) {
  const inputs = ["size", "komi"].map((name) => $("options").querySelector(`input[name="${name}"]`));
  const before = inputs.map((input) => input?.value);
  const restore = () => inputs.forEach((input, i) => { if (input) input.value = before[i]; });
  const rules = /^\s*\(\s*;/.test(text) ? sgfRules(text) : null;
  if (rules === null) return restore;
  const [size, komi] = inputs;
  if (size && rules.size !== null) size.value = String(rules.size);
  if (komi && rules.komi !== null) komi.value = String(rules.komi);
  return restore;
}

// A pasted PGN: the game is loaded with both sides to the human (the engine
// plays no move on it), shown at its last position, and reviewed.
async function loadPgn(text) {
  let game;
  try {
    game = parsePgn(text);
  } catch {
    say(() => t("play.pgn.bad"), "error");
    return;
  }
  $("side").value = "both";
  readSides();
  // tags: the export keeps the game's names, event and date.
  if (await startGame({ game: "chess", options: {}, position: game.position, moves: game.moves, tags: game.tags }, false)) {
    await reviewGame(); // the review's steps clear the message line: say it after
    say(() => t(game.moves.length === 1 ? "play.pgn.loaded.one" : "play.pgn.loaded", { count: game.moves.length }), "hint");
  }
}

// Scores every position of the listed line that has no engine score yet,
// one think each (the engine time of the side to move there), so that the
// graph and the move marks cover the whole game; Stop ends it. The board
// steps through the game as it goes and comes back to where it was.
async function reviewGame() {
  if (!app.state || !app.conn || app.reviewing) return;
  app.analysing = false;
  await cancelThink();
  app.reviewing = true;
  const back = app.state.history.length;
  const end = app.line.length;
  let finished = true;
  try {
    for (let ply = 0; ply <= end; ply++) {
      if (!app.reviewing) {
        finished = false;
        break;
      }
      if (app.evals[ply]) continue;
      await goToPly(ply);
      const state = app.state;
      if (!app.reviewing || !app.conn || state.history.length !== ply) {
        finished = false;
        break;
      }
      if (state.result || state.to_move === CHANCE) continue;
      clearThinkPanel();
      const { id, done } = app.conn.think({ movetime_ms: movetimeMs(state.to_move) }, (info) => {
        if (app.think && app.think.id === id) {
          noteIteration(app.think, info);
          showInfo(info, app.think);
        }
      }, chosenAlgorithm());
      const think = { id, purpose: "review", generation: app.generation, ply, toMove: state.to_move, position: state.position, game: state.game, done };
      app.think = think;
      showThinkStatus(() => t("play.reviewing", { ply, plies: end }));
      updateButtons();
      let best;
      try {
        best = await done;
      } catch (error) {
        if (app.conn) say(errorSaid(error), "error");
        finished = false;
        break;
      } finally {
        if (app.think === think) app.think = null;
      }
      if (think.generation !== app.generation) {
        finished = false;
        break;
      }
      app.evals[ply] = { score: graphScore(think, best), toMove: think.toMove, chance: countsPlayouts(best) };
      showInfo(best, think, true);
      render();
    }
  } finally {
    app.reviewing = false;
  }
  showThinkStatus(() => t(finished ? "play.reviewed" : "play.review.stopped"));
  if (finished && app.state && app.state.history.length !== back) await goToPly(back);
  else updateButtons();
}

// The mark of the move that made ply `ply` (1 = the first move), or null:
// chess only, from the engine's scores of the positions either side of it.
function markOf(ply) {
  if (!app.start || app.start.game !== "chess") return null;
  const before = app.evals[ply - 1];
  return before ? moveMark(before, app.evals[ply], before.toMove) : null;
}

// ---------------------------------------------------------------------------
// Thinking.

function startThink(purpose) {
  const state = app.state;
  if (!state || state.result || app.think || !app.conn) return;
  const limits = purpose === "play" ? { movetime_ms: movetimeMs(state.to_move) } : {};
  // Analysis shows the k best lines (the server's multipv); play needs one.
  const multipv = purpose === "analyse" && !$("multipv").disabled ? Number($("multipv").value) || 1 : 1;
  clearThinkPanel();
  forgetPanel(); // a reload now starts this search again, or shows nothing
  const { id, done } = app.conn.think(limits, (info) => {
    if (app.think && app.think.id === id) {
      if (!(info.multipv > 1)) noteIteration(app.think, info); // the graph plots line 1
      showInfo(info, app.think);
    }
  }, chosenAlgorithm(), multipv);
  // expectedLines: a report's lines, k unless the position has fewer moves.
  const think = { id, purpose, generation: app.generation, ply: state.history.length, toMove: state.to_move, position: state.position, game: state.game, done, lines: [], pending: null, expectedLines: Math.min(multipv, state.legal_moves.length), reports: [] };
  app.think = think;
  if (purpose === "analyse") {
    app.analysing = true;
    app.analysedKey = positionKey(state);
  }
  showThinkStatus(() => (purpose === "play" ? t("play.thinking", { name: title(playerName(state.to_move)) }) : t("play.analysing")));
  render();
  done.then((best) => finishThink(think, best), (error) => {
    if (app.think === think) app.think = null;
    if (error.code === "overloaded") retryLater(think, error.retryAfterMs);
    else if (app.conn) say(errorSaid(error), "error"); // a lost connection says so itself
    render();
  });
}

// The server's queue was full: say so, and ask again after the time it gave.
function retryLater(think, retryAfterMs) {
  const wait = Math.max(100, retryAfterMs ?? 1000);
  say(() => t("play.busy", { seconds: (wait / 1000).toFixed(1) }), "error");
  $("message").dataset.busy = "1";
  showThinkStatus(() => t("play.busy.status"));
  setTimeout(() => {
    if (think.generation !== app.generation || app.think) return;
    if ($("message").dataset.busy === "1") say("");
    if (think.purpose === "play") scheduleEngine();
    else if (app.analysing) {
      app.analysedKey = null;
      scheduleEngine();
    }
  }, wait);
}

async function finishThink(think, best) {
  if (app.think === think) {
    flushLines(think); // a last report shorter than asked for
    app.think = null;
  }
  const current = think.generation === app.generation;
  showThinkStatus(() => t("play.best", { move: movesText(think, [best.move]), reason: searchReason(best.reason) }));
  if (best.reason === "overloaded") say(() => t("play.overloaded"), "error");
  showInfo(best, think, true);
  if (think.generation === app.generation && think.reports) savePanel(think);
  // The bold arrow is the answer's move, also when a whole depth's line 1 was another.
  if (app.lines && app.lines.position === think.position && app.lines.moves[0] !== best.move) {
    app.lines = { ...app.lines, moves: [best.move, ...app.lines.moves.filter((move) => move !== best.move)] };
  }
  if (current) {
    app.evals[think.ply] = { score: graphScore(think, best), toMove: think.toMove, chance: countsPlayouts(best) };
    if (app.state) saveGame(app.state); // the score too: an analysis's point was lost on reload
  }
  render();
  if (!current) return;
  if (think.purpose === "play") {
    // A screen reader hears the engine's move (the board is one picture; a
    // review of 2026-12-07 found nothing announced).
    const info = gameInfo(think.game);
    $("announce").textContent = t("play.announce", { name: title(info.players[think.toMove] ?? ""), move: movesText(think, [best.move]) });
    await sendMove(best.move);
  } else scheduleEngine();
}

// Stops the running think, if any, and waits for its bestmove.
async function cancelThink() {
  const think = app.think;
  if (!think) return;
  app.conn.stop(think.id);
  try {
    await think.done;
  } catch {
    // the connection closed: nothing left to stop
  }
  if (app.think === think) app.think = null;
}

// The Lines or Engine search menu changed: a running analysis starts again
// with the new choice (as lichess's does), rather than going on with the
// old one until Stop. Its answer comes first, then scheduleEngine starts
// the new analysis on the same position.
function restartAnalysis() {
  const think = app.think;
  if (!think || think.purpose !== "analyse" || !app.analysing) return;
  app.analysedKey = null;
  app.conn.stop(think.id);
}

function stopThink() {
  app.analysing = false;
  app.reviewing = false;
  if (app.think) app.conn.stop(app.think.id);
}

// ---------------------------------------------------------------------------
// Drawing.

function render() {
  const state = app.state;
  // The state's board may still be loading (a change of language then found
  // no board: a TypeError in a CI run); setState draws once it has come.
  if (!state || !app.board || app.boardGame !== state.game) return;
  const info = gameInfo(state.game);
  const view = boardView();
  app.board.update(view);
  // The board's description ends with whose move it is (a review of
  // 2026-12-07: with both sides played by hand nothing said so).
  const words = $("board").querySelector(".board-svg desc");
  if (words && !state.result && state.to_move !== CHANCE && typeof state.to_move === "number") {
    words.textContent += ` ${t("board.say.tomove", { name: title(playerName(state.to_move)) })}`;
  }
  $("flip").hidden = !app.board.flippable;
  // The key legend names f only where Flip is (a review, 2026-12-07).
  for (const hint of document.querySelectorAll(".key-flip")) hint.hidden = !app.board.flippable;
  $("board").classList.toggle("interactive", view.interactive);
  $("pass").hidden = !(view.interactive && state.legal_moves.includes("pass"));
  // Go's resignation is a move of its own (protocol.md section 9), not in
  // legal_moves: typed, it worked, but no player would guess (a review, 2026-12-07).
  $("resign").hidden = !(view.interactive && state.game === "go");
  if ($("resign").hidden) disarmResign();
  if (document.activeElement !== $("position")) $("position").value = state.position;
  // Backgammon: gnubg's own PositionID:MatchID, to paste into gnubg's `set gnubgid`.
  $("gnubg-id").hidden = !state.gnubg_id;
  $("gnubg-id-text").textContent = state.gnubg_id || "";
  renderMoves(state);
  renderResult(state, info);
  renderGraph(state);
  updateLearnLink(state);
  updateButtons();
}

// Where the focus goes when the control that had it is gone: back to the
// board when it was on the board (a backgammon move button that ← took away,
// the promotion chooser, a square after the last move: a review of
// 2026-12-08 found the focus in the Move box, where ← and → do nothing),
// else to the Move box.
function focusAfterLoss(home) {
  if (home && home.id === "board") {
    // Its Tab stop or first button, else the board itself (focusable from
    // script only): the page's keys work from there, not from a text box.
    return home.querySelector('[data-board-part][tabindex="0"]') || home.querySelector("button:not([disabled])") || home;
  }
  return $("move-input");
}

function boardView() {
  const state = app.state;
  const humanSecond = app.sides[1] === "human" && app.sides[0] === "engine";
  return {
    state,
    players: gameInfo(state.game).players,
    lastMove: state.history.length ? state.history[state.history.length - 1] : null,
    // The analysed lines' first moves, best first, while their position is shown.
    arrows: app.lines && app.lines.position === state.position ? app.lines.moves : [],
    start: app.start && app.start.game === state.game ? app.start.position : null,
    interactive: !state.result && app.sides[state.to_move] === "human" && !(app.think && app.think.purpose === "play"),
    flipped: humanSecond !== app.manualFlip,
    // Both sides played from this page (or both by the engine): a board
    // whose numbers depend on the player (backgammon's points) numbers them
    // for the player on roll, as that player's moves are written.
    numbersFollowTurn: app.sides[0] === app.sides[1],
  };
}

// The listed line, in SAN for chess; the move leading to the shown position
// is marked; a click shows the position after that move.
function renderMoves(state) {
  const list = $("moves");
  const items = [];
  const names = app.lineSan.length === app.line.length ? app.lineSan : app.line;
  const current = state.history.length;
  let currentSpan = null;
  for (let ply = 0; ply < names.length; ply += 2) {
    const item = document.createElement("li");
    names.slice(ply, ply + 2).forEach((move, offset) => {
      const span = document.createElement("span");
      const after = ply + offset + 1;
      span.className = after === current ? "ply current" : (after > current ? "ply ahead" : "ply");
      if (after === current) span.setAttribute("aria-current", "step"); // the move shown, for a screen reader
      span.textContent = move;
      span.dataset.ply = String(after);
      span.title = t("play.show.after", { move });
      const mark = markOf(after);
      if (mark) {
        const sign = document.createElement("span");
        sign.className = `mark ${mark.kind}`;
        sign.textContent = mark.symbol;
        span.append(sign);
        span.title += ` — ${t(`play.mark.${mark.kind}`, { lost: Math.round(mark.lost * 100) })}`;
      }
      span.addEventListener("click", () => goToPly(after));
      if (after === current) currentSpan = span;
      item.append(span, " ");
    });
    items.push(item);
  }
  list.replaceChildren(...items);
  // The list scrolls, not the page: scrollIntoView moved the whole page at
  // each step of a review, the header off the top (a review, 2026-12-07).
  if (currentSpan && browsing()) scrollWithin(list, currentSpan);
  else list.scrollTop = list.scrollHeight;
  $("moves-start").disabled = current === 0;
  $("moves-back").disabled = current === 0;
  $("moves-forward").disabled = current >= app.line.length;
  $("moves-end").disabled = current >= app.line.length;
  rescueFocus(focusAfterLoss);
}

function renderResult(state, info) {
  const box = $("result");
  if (!state.result) {
    box.hidden = true;
    return;
  }
  const { winner } = state.result;
  const reason = resultReason(state.result.reason, title);
  let text = winner === null ? t("play.draw") : t("play.wins", { name: title(info.players[winner]) });
  // "white wins by 4.5" says it all: not "White wins — white wins by 4.5".
  if (reason && reason.toLowerCase().startsWith(text.toLowerCase())) text = title(reason);
  else if (reason) text += ` — ${reason}`;
  if (state.result.points > 1) text += ` ${t("play.points", { points: state.result.points })}`;
  const humans = [0, 1].filter((p) => app.sides[p] === "human");
  if (humans.length === 1 && winner !== null) text += t(winner === humans[0] ? "play.you.win" : "play.engine.wins");
  box.textContent = text;
  box.hidden = false;
}

// The graph is always from the first player's point of view (up is good
// for them), in the game's unit.
function renderGraph(state) {
  const info = gameInfo(state.game);
  const unit = unitName(info.eval_unit);
  const monteCarlo = expectsPlayouts(state.game);
  const povKey = monteCarlo && info.win_odds_scale > 0 ? "play.scores.pov.chance" : unit ? "play.scores.pov.unit" : "play.scores.pov";
  $("score-pov").textContent = t(povKey, { name: title(info.players[0]), unit });
  // The note on depths (parity.js) means nothing to a Monte Carlo search.
  $("graph-note").hidden = monteCarlo;
  const points = [];
  app.evals.forEach((entry, ply) => {
    if (!entry || ply > app.line.length) return;
    points.push({ ply, value: firstPlayerNumber(entry.score, entry.toMove), chance: entry.chance });
  });
  // Labelled as chances when every point is a Monte Carlo win rate (the
  // values are its log-odds, so the curve is the same either way).
  // With no point yet, as the search to come will report (a Go game's
  // empty graph was scaled ±1.1 in points).
  const chances = info.win_odds_scale > 0 && (points.length > 0 ? points.every((point) => point.chance) : monteCarlo);
  const label = chances ? (value) => formatChance(value, info.win_odds_scale) : (value) => formatValue(value, info.eval_unit);
  drawGraph($("graph"), points, Math.max(app.line.length, state.history.length), label,
    browsing() ? state.history.length : null, (ply) => goToPly(Math.min(ply, app.line.length)));
}

// The Learn page's link carries the position shown: the game, its options,
// its start position and the moves up to here.
function updateLearnLink(state) {
  const params = new URLSearchParams({ game: state.game });
  if (state.options && Object.keys(state.options).length > 0) params.set("options", JSON.stringify(state.options));
  if (app.start && app.start.position) params.set("position", app.start.position);
  // A resignation changes no board: the Learn page traces the position it
  // was played in (with it, the page only said "the game is over", a
  // review of 2026-12-07).
  const moves = state.history.slice();
  while (moves.length > 0 && moves[moves.length - 1] === "resign") moves.pop();
  if (moves.length > 0) params.set("moves", moves.join(" "));
  $("learn-link").href = `learn?${params}`;
}

function updateButtons() {
  const state = app.state;
  const ready = Boolean(app.conn && app.conn.isOpen && state);
  const thinking = Boolean(app.think);
  $("stop").disabled = !thinking && !app.reviewing;
  $("review").disabled = !ready || thinking || app.reviewing || app.line.length === 0;
  const decision = Boolean(state && !state.result && state.to_move !== CHANCE);
  $("analyse").disabled = !ready || thinking || !decision;
  $("go").disabled = !ready || thinking || !decision;
  // Not during a review: it acted on the ply the review showed and cut the
  // game there (a review, 2026-12-07).
  $("takeback").disabled = !ready || !state || state.history.length === 0 || app.reviewing;
  $("new-game").disabled = !app.conn;
  rescueFocus(focusAfterLoss);
}

// The status beside the Engine heading, kept as how to write it, so that a
// change of language writes it again (it is not one of the page's static texts).
function showThinkStatus(describe) {
  app.thinkStatus = describe;
  $("think-status").textContent = describe();
}

// The engine table's first heading: what the search counts (depth or
// playouts), in a short form where the language has one ("prof.":
// "profundidade" took a third of a phone's table, a review of 2026-12-07),
// its title the whole word. applyStatic writes it again on a change of language.
function headSearched(key) {
  const heading = $("info-lines").tHead.rows[0].cells[0];
  const short = has(`${key}.short`) ? `${key}.short` : key;
  heading.dataset.i18n = short;
  heading.dataset.i18nTitle = key;
  heading.textContent = t(short);
  heading.title = t(key);
}

function clearThinkPanel(game = app.state?.game) {
  $("info-lines").tBodies[0].replaceChildren();
  for (const id of ["t-depth", "t-score", "t-nodes", "t-nps", "t-time"]) $(id).textContent = "–";
  // Labelled for the search to come (a Go game's first said "depth").
  const searched = expectsPlayouts(game) ? "summary.playouts" : "play.depth";
  $("t-depth-label").dataset.i18n = searched; // a change of language writes it again
  $("t-depth-label").textContent = t(searched);
  headSearched(searched);
  $("pv").textContent = "";
  $("t-score").classList.remove("proven-win", "proven-loss", "proven-draw");
  $("t-score").title = "";
  $("t-depth").title = "";
  showThinkStatus(() => "");
  $("lines").replaceChildren();
  $("lines").hidden = true;
  app.lines = null;
  app.linesThink = null;
  app.summary = null;
}

// A line of a multi-line analysis (info.multipv): the list shows the latest
// whole report, best first; chess draws their first moves as arrows, Go and
// Connect Four mark their points. Only line 1 goes on to the summary and the
// table. A report is k infos, one message each, and the page may draw
// between two messages: the list changes only once a report is whole, for a
// move re-ranked from one report to the next showed twice, and a rank not
// at all, while the list mixed the two (seen as ['E7', 'C3', 'C3'] in Go).
function showLine(info, think) {
  if (!think.lines || info.partial || !info.pv.length) return;
  if (info.multipv === 1) {
    // A report shorter than asked for (a search with fewer lines so far) is whole once the next begins.
    flushLines(think);
    think.pending = [];
  }
  if (!think.pending) return; // the rest of a report whose line 1 had no line to show
  think.pending[info.multipv - 1] = info;
  if (think.pending.filter(Boolean).length >= think.expectedLines) flushLines(think);
}

// Shows the report being gathered, if any (at its last line, at the next
// report's first, and at the search's answer).
function flushLines(think) {
  if (!think.pending || think.pending.length === 0) return;
  think.lines = think.pending;
  think.pending = null;
  drawLines(think);
}

// The list of a think's last whole report (drawn again on a change of language).
function drawLines(think) {
  app.linesThink = think;
  const lines = think.lines.filter(Boolean);
  const list = $("lines");
  list.replaceChildren(...lines.map((line) => {
    // Each move unbroken (a narrow panel wrapped O-O at its hyphen).
    const item = document.createElement("li");
    item.append(`${scoreText(line, think)}  `);
    movesText(think, line.pv).split(" ").forEach((move, index) => {
      const span = document.createElement("span");
      span.className = "pv-move";
      span.textContent = move;
      item.append(...(index ? [" ", span] : [span]));
    });
    return item;
  }));
  list.hidden = lines.length < 2;
  app.lines = { position: think.position, moves: lines.map((line) => line.pv[0]) };
  if (app.state && app.board) app.board.update(boardView());
}

// A report (an info, or with `final` the bestmove) in the summary and as the
// table's top row: the summary always repeats the top row's numbers.
function showInfo(report, think, final = false) {
  if (!final && report.multipv) {
    showLine(report, think);
    if (report.multipv > 1) return;
  }
  // The bestmove carries no rate of its own: it repeats the last info's (its
  // time also counts the wait for the deadline, so nodes over time would
  // understate the search's speed). A last info too short for a rate gives
  // the bestmove none either, so that the summary and the table agree.
  const info = final ? { ...report, nps: think.lastNps, ...fromUnfinishedDepth(report, think) } : report;
  if (!final && typeof info.nps === "number") think.lastNps = info.time_ms >= MIN_RATE_MS ? info.nps : undefined;
  if (!final) think.lastPartial = info.partial ? info : null;
  showSummary(info, think);
  showPv(info.pv, think);
  app.summary = { info, think };
  if (think.reports) {
    think.reports.push({ info: report, final });
    if (think.reports.length > 2 * MAX_INFO_ROWS) think.reports.splice(0, MAX_INFO_ROWS); // an analysis streams on
  }
  const row = document.createElement("tr");
  row.report = { info, think };
  if (info.partial) {
    row.className = "partial";
    row.title = t("play.partial.title");
  }
  if (final) {
    row.className = info.partial ? "final partial" : "final";
    row.title = info.partial ? `${t("play.best.row")}; ${t("play.partial.title")}` : t("play.best.row");
  }
  const searched = countsPlayouts(info) ? formatCount(info.playouts) : String(info.depth);
  headSearched(searchedKey(info));
  const cells = [
    info.partial ? `${searched}*` : searched,
    scoreText(info, think),
    formatCount(info.nodes),
    formatRate(info),
    formatTime(info.time_ms),
    movesText(think, info.pv),
  ];
  for (const text of cells) {
    const cell = document.createElement("td");
    cell.textContent = text;
    row.append(cell);
  }
  const body = $("info-lines").tBodies[0];
  body.prepend(row);
  while (body.rows.length > MAX_INFO_ROWS) body.deleteRow(body.rows.length - 1);
}

// A bestmove whose move came from a depth the search did not finish (the
// last info was partial and named it) is labelled with that depth, starred,
// rather than with the last whole depth, whose line 1 may be another move:
// the review saw "Best Nc3" on a row of depth 9 beside depth 9's line 1, e3.
function fromUnfinishedDepth(best, think) {
  const partial = think.lastPartial;
  if (!partial || !partial.pv.length || partial.pv[0] !== best.move) return {};
  return { depth: partial.depth, partial: true };
}

// Monte Carlo searches report playouts, which say more than their depth.
function countsPlayouts(report) {
  return report.playouts !== undefined && report.playouts !== null;
}

// The label of a report's depth or playouts column.
function searchedKey(report) {
  return countsPlayouts(report) ? "summary.playouts" : "play.depth";
}

function showSummary(report, think) {
  $("t-depth-label").dataset.i18n = searchedKey(report);
  $("t-depth-label").textContent = t(searchedKey(report));
  if (countsPlayouts(report)) $("t-depth").textContent = formatCount(report.playouts);
  else $("t-depth").textContent = report.seldepth > report.depth ? `${report.depth}/${report.seldepth}` : String(report.depth);
  // A new best move inside an unfinished depth: starred as in the table, for
  // the lines list beside it still shows the last whole depth's lines.
  if (report.partial) $("t-depth").textContent += "*";
  $("t-depth").title = report.partial ? t("play.partial.title") : "";
  $("t-score").textContent = scoreText(report, think);
  $("t-score").title = chanceScale(report, think) && "value" in report.score
    ? t("score.chance.title", { name: title(gameInfo(think.game).players[0]) }) : "";
  // Coloured for the first player: green when the proven result is theirs.
  const first = report.score && ("win_in" in report.score || "loss_in" in report.score)
    ? ("win_in" in report.score) === (think.toMove === 0) : null;
  $("t-score").classList.toggle("proven-win", first === true);
  $("t-score").classList.toggle("proven-loss", first === false);
  $("t-score").classList.toggle("proven-draw", "draw" in report.score);
  $("t-nodes").textContent = formatCount(report.nodes);
  $("t-nps").textContent = formatRate(report);
  $("t-time").textContent = formatTime(report.time_ms);
}

function showPv(pv, think) {
  $("pv").textContent = pv.length ? t("play.pv.line", { line: movesText(think, pv) }) : "";
}

// A report's score of the searched position, from the first player's point
// of view; a Monte Carlo report's as the win rate it was mapped from.
function scoreText(report, think) {
  const info = gameInfo(think.game);
  return formatScore(report.score, think.toMove, info.name, info.eval_unit, info.players.map(title), chanceScale(report, think));
}

// The game's win-odds scale when a report's values are win rates (a Monte
// Carlo search's, and a server that says its scale), else null.
function chanceScale(report, think) {
  const scale = gameInfo(think.game).win_odds_scale;
  return countsPlayouts(report) && report.score && scale > 0 ? scale : null;
}

// Moves from the searched position as the move list writes them: SAN in
// chess (the server's pv is UCI), the game's notation elsewhere.
function movesText(think, moves) {
  if (think.game === "chess") {
    const san = uciToSan(think.position, moves);
    if (san) return san.join(" ");
  }
  return moves.join(" ");
}

// ---------------------------------------------------------------------------
// Game records: PGN for chess, the start position and moves for the others.

function resultText(result) {
  if (!result) return "*";
  if (result.winner === null) return "1/2-1/2";
  return result.winner === 0 ? "1-0" : "0-1";
}

function sideName(player) {
  return app.sides[player] === "human" ? "Human" : "alphabeta-arena engine";
}

function gameRecord() {
  const state = app.state;
  const info = gameInfo(state.game);
  const atEnd = state.history.length === app.line.length;
  const result = atEnd ? state.result : null;
  const date = new Date();
  const day = `${date.getFullYear()}.${String(date.getMonth() + 1).padStart(2, "0")}.${String(date.getDate()).padStart(2, "0")}`;
  if (state.game === "chess") {
    const given = app.start.tags || {};
    const tags = [
      ["Event", given.Event ?? "alphabeta-arena game"], ["Site", given.Site ?? "alphabeta-arena web GUI"],
      ["Date", given.Date ?? day], ["Round", given.Round ?? "-"],
      ["White", given.White ?? sideName(0)], ["Black", given.Black ?? sideName(1)], ["Result", resultText(result)],
    ];
    if (app.start.position) tags.push(["SetUp", "1"], ["FEN", app.start.position]);
    // PGN's Termination takes a few words ("normal" for any end by the
    // rules); the reason itself goes in a comment after the last move, as
    // the tournament's records write it ("checkmate" was no standard value:
    // a review, 2026-12-07).
    if (result && result.reason) tags.push(["Termination", "normal"]);
    const fields = (app.start.position || "").split(" ");
    let number = Number(fields[5]) || 1;
    let white = (fields[1] || "w") === "w";
    const words = [];
    const san = app.lineSan.length === app.line.length ? app.lineSan : app.line;
    san.forEach((move, i) => {
      if (white) words.push(`${number}.`);
      else if (i === 0) words.push(`${number}...`);
      const mark = markOf(i + 1);
      words.push(mark ? `${move}${mark.symbol}` : move);
      if (!white) number++;
      white = !white;
    });
    if (result && result.reason) words.push(`{${String(result.reason).replace(/}/g, ")")}}`);
    words.push(resultText(result));
    const lines = [];
    let line = "";
    for (const word of words) {
      if (line && line.length + 1 + word.length > 79) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
    const header = tags.map(([name, value]) => `[${name} "${String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`);
    return { text: `${header.join("\n")}\n\n${lines.join("\n")}\n`, what: "PGN", file: "game.pgn" };
  }
  if (state.game === "go") return goRecord(state, result, date);
  const lines = [
    `Game: ${info.title || info.name} (${info.name})`,
    `Date: ${day}`,
    `Players: ${title(info.players[0])} (${sideName(0)}) - ${title(info.players[1])} (${sideName(1)})`,
    `Options: ${JSON.stringify(app.start.options || {})}`,
    `Start position: ${app.start.position ?? "(the usual start)"}`,
    `Moves: ${app.line.join(" ")}`,
  ];
  if (result) {
    lines.push(`Result: ${result.winner === null ? "draw" : `${title(info.players[result.winner])} wins`}${result.reason ? ` (${result.reason})` : ""}`);
  } else lines.push("Result: unfinished");
  if (!atEnd) lines.push(`Shown: the position after ${state.history.length} of ${app.line.length} moves: ${state.position}`);
  else lines.push(`Final position: ${state.position}`);
  return { text: `${lines.join("\n")}\n`, what: "Record", file: `${state.game}.txt` };
}

// A Go game in SGF (FF[4]): setup stones from a loaded start, the moves as
// SGF points (letters from the top left, no I skipped), passes empty.
function goRecord(state, result, date) {
  const size = Number(state.options.size) || 9;
  let re = "";
  if (result) {
    const colour = result.winner === 0 ? "B" : "W";
    const margin = /by (\d+(?:\.\d+)?)/.exec(result.reason || "");
    if (result.winner === null) re = "0";
    else if (/resign/i.test(result.reason || "")) re = `${colour}+R`;
    else re = margin ? `${colour}+${margin[1]}` : `${colour}+`;
  }
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  const given = app.start.tags || {}; // a loaded record's own names, event and date
  const props = [["FF", "4"], ["GM", "1"], ["CA", "UTF-8"], ["AP", "alphabeta-arena web GUI"], ["SZ", String(size)],
    ["KM", String(state.options.komi ?? 7.5)], ["RU", "Tromp-Taylor"], ["PB", given.PB ?? sideName(0)], ["PW", given.PW ?? sideName(1)],
    ["DT", given.DT ?? day]];
  const written = new Set(props.map(([name]) => name));
  for (const name of KEPT_TAGS) if (given[name] && !written.has(name)) props.push([name, given[name]]);
  if (re) props.push(["RE", re]);
  let root = props.map(([name, value]) => `${name}[${sgfEscape(value)}]`).join("");
  let mover = "B";
  if (app.start.position) {
    const [board, side] = app.start.position.trim().split(/\s+/);
    const rows = board.split("/");
    for (const [stone, name] of [["X", "AB"], ["O", "AW"]]) {
      const points = [];
      rows.forEach((row, r) => [...row].forEach((cell, c) => { if (cell === stone) points.push(`[${SGF_LETTERS[c]}${SGF_LETTERS[r]}]`); }));
      if (points.length) root += name + points.join("");
    }
    mover = side === "O" ? "W" : "B";
    root += `PL[${mover}]`;
  }
  const nodes = [`;${root}`];
  for (const move of app.line) {
    if (move === "resign") break; // no such move in SGF: RE says it
    nodes.push(`;${mover}[${sgfPoint(move, size)}]`);
    mover = mover === "B" ? "W" : "B";
  }
  return { text: `(${nodes.join("\n")})\n`, what: "SGF", file: "game.sgf" };
}

function downloadRecord() {
  if (!app.state) return;
  const { text, file } = gameRecord();
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = file;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// ---------------------------------------------------------------------------
// Small things.

function gameInfo(name) {
  return app.games.find((g) => g.name === name) || { name, players: ["first", "second"], eval_unit: "", options: {}, option_help: {} };
}

// Names for games whose server names are numbers or "first"/"second": the
// colours the boards draw them in.
const COLOUR_NAMES = { connect4: ["red", "yellow"], backgammon: ["white", "black"] };

function playerNames(info) {
  const generic = info.players.every((name) => /^(\d+|first|second)$/i.test(name));
  return generic && COLOUR_NAMES[info.name] ? COLOUR_NAMES[info.name] : info.players;
}

function playerName(index) {
  return app.state ? gameInfo(app.state.game).players[index] : String(index);
}

// A player's name for display: "White", or "Player 0" for games that number
// them, in the page's language where the tables name the player.
function title(text) {
  return playerTitle(text);
}

// A game's title: the tables' where they have it, else the server's.
function gameTitle(info) {
  const key = `game.${info.name}`;
  return has(key) ? t(key) : info.title || info.name;
}

let sayAgain = null;

// The message box: `text`, or a function that writes it in the page's
// language, called again when the language changes (an error said in
// English stayed English on a page switched to Portuguese).
function say(text, kind = "hint") {
  const box = $("message");
  sayAgain = typeof text === "function" ? text : null;
  box.textContent = sayAgain ? sayAgain() : text;
  box.className = kind;
  box.dataset.busy = "0"; // retryLater marks its own message
}

// An error as the message box says it: an engine's error in the page's
// language whenever it is written (its code's explanation, then the
// server's own words), any other error by its text.
function errorSaid(error) {
  return error instanceof EngineError ? () => errorText(error.code, error.serverMessage) : error.message;
}

function setStatus(text, kind) {
  const status = $("connection");
  // Written by the page from now on: a change of language refilled the
  // static "connecting…" over a connected status (data-i18n).
  delete status.dataset.i18n;
  status.textContent = text;
  status.className = `status ${kind}`;
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    say(() => t("play.copied", { what }), "hint");
  } catch {
    say(`${what}: ${text}`, "hint"); // no clipboard (insecure context): show it to copy by hand
  }
}

// ---------------------------------------------------------------------------
// Wiring.

function wire() {
  watchFocus();
  $("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    readSides();
    const started = await newGameFromForm();
    // On a phone the form is below the board: the new game's board is
    // brought into view (it stayed scrolled at the form, the board's top
    // off screen: a review, 2026-12-07).
    if (started && window.matchMedia(NARROW_SCREEN).matches) $("play").scrollIntoView({ block: "start" });
  });
  $("game").addEventListener("change", () => {
    gameChosen();
    newGameFromForm();
  });
  $("side").addEventListener("change", () => {
    readSides();
    if (app.state) saveGame(app.state); // who plays comes back with the game (a review, 2026-12-07)
    render();
    scheduleEngine();
  });
  $("position-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadPosition();
  });
  $("copy-position").addEventListener("click", () => app.state && copyText(app.state.position, t("learn.position")));
  $("copy-gnubg-id").addEventListener("click", () => app.state && app.state.gnubg_id && copyText(app.state.gnubg_id, t("play.gnubg")));
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    try {
      sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
    } catch {
      // no session storage: the token is only in the URL then
    }
    $("token-form").hidden = true;
    setStatus(t("status.connecting"), "");
    say("");
    if (reconnectTimer !== null) clearTimeout(reconnectTimer);
    connect();
  });
  $("copy-moves").addEventListener("click", () => app.state && copyText(gameRecord().text, gameRecord().what));
  $("download-moves").addEventListener("click", downloadRecord);
  $("review").addEventListener("click", reviewGame);
  $("position").addEventListener("keydown", (event) => {
    // One line's Enter loads, as in a text box; Shift+Enter breaks the line of a pasted PGN.
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("position-form").requestSubmit();
    }
  });
  $("moves-start").addEventListener("click", () => goToPly(0));
  $("moves-back").addEventListener("click", () => stepPly(-1));
  $("moves-forward").addEventListener("click", () => stepPly(1));
  $("moves-end").addEventListener("click", () => goToPly(app.line.length));
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const move = $("move-input").value.trim();
    if (!move) return;
    if (!app.conn || !app.conn.isOpen) {
      // Kept in the box until the page is connected again: it was cleared
      // and lost during an outage (a review, 2026-12-07).
      say(() => t("conn.not"), "error");
      return;
    }
    $("move-input").value = "";
    humanMove(move, true);
  });
  $("pass").addEventListener("click", () => humanMove("pass"));
  // Resign asks once more, as lichess does: one click beside Pass gave the
  // game away (the last note's known gap). A second click, with the button
  // still showing the question, resigns; leaving it puts it back.
  $("resign").addEventListener("click", () => {
    if (!$("resign").classList.contains("confirm")) {
      $("resign").classList.add("confirm");
      $("resign").textContent = t("play.resign.confirm");
      return;
    }
    disarmResign();
    humanMove("resign");
  });
  $("resign").addEventListener("blur", disarmResign);
  $("go").addEventListener("click", () => startThink("play"));
  $("analyse").addEventListener("click", () => startThink("analyse"));
  $("stop").addEventListener("click", stopThink);
  $("multipv").addEventListener("change", restartAnalysis);
  $("algorithm").addEventListener("change", () => {
    rememberAlgorithm();
    updateLinesChoice(gameInfo($("game").value));
    restartAnalysis();
    if (app.state) renderGraph(app.state); // the scores' note says what the new search's scores are
  });
  $("takeback").addEventListener("click", takeBack);
  $("flip").addEventListener("click", () => {
    app.manualFlip = !app.manualFlip;
    render();
  });
  document.addEventListener("keydown", onKey);
  wireLanguageMenu($("lang"));
  onLanguageChange(() => {
    if (app.conn && app.serverText) setStatus(serverName(app.serverText), "good");
    $("resign").classList.remove("confirm"); // its words are the language's again
    // Everything the page built from the server's data, built again.
    if (app.games.length === 0) return;
    fillGameMenu();
    const side = $("side").value;
    gameChosen();
    $("side").value = side;
    readSides();
    if (app.state) render();
    rewriteThinkPanel();
    if (sayAgain) $("message").textContent = sayAgain();
  });
}

// The think panel's texts built from reports and its status (scores in words, the PV
// line, the lines list), written again in the page's new language: a proven
// "vence em 3" stayed Portuguese on an English page until the next report.
function rewriteThinkPanel() {
  $("think-status").textContent = app.thinkStatus();
  if (app.summary) {
    showSummary(app.summary.info, app.summary.think);
    showPv(app.summary.info.pv, app.summary.think);
  }
  for (const row of $("info-lines").tBodies[0].rows) {
    if (!row.report) continue;
    const { info, think } = row.report;
    // Every figure again, in the new language's decimal mark (the review of
    // 2026-11-29 saw "158.2k" beside "+0,05" in one row).
    row.cells[1].textContent = scoreText(info, think);
    row.cells[2].textContent = formatCount(info.nodes);
    row.cells[3].textContent = formatRate(info);
    row.cells[4].textContent = formatTime(info.time_ms);
    if (row.classList.contains("final")) row.title = t("play.best.row");
    if (row.classList.contains("partial")) row.title = t("play.partial.title");
  }
  const searched = expectsPlayouts(app.state?.game) ? "summary.playouts" : "play.depth";
  headSearched(app.summary ? searchedKey(app.summary.info) : searched);
  if (app.linesThink && !$("lines").hidden) drawLines(app.linesThink);
}

function onKey(event) {
  if (keyBelongsElsewhere(event)) return;
  const ran = runShortcut(event, {
    n: () => newGameFromForm(),
    g: () => startThink("play"),
    a: () => startThink("analyse"),
    s: () => stopThink(),
    t: () => takeBack(),
    Backspace: () => takeBack(),
    f: () => $("flip").click(),
    m: () => $("move-input").focus(),
    ArrowLeft: () => stepPly(-1),
    ArrowRight: () => stepPly(1),
    Home: () => goToPly(0),
    End: () => goToPly(app.line.length),
  });
  if (ran) return;
  if (app.board && app.board.key && app.state && app.board.key(event, boardView())) event.preventDefault();
}

applyStatic();
wire();
updateButtons();
connect();
