// The live page of `arena tournament --web PORT`: polls /api/snapshot (the
// server answers 304 while nothing changed), draws the standings, the
// crosstable and every game in progress with the GUI's own board modules
// (boards/<game>.js), and replays a game from /api/game/ID move by move,
// with the bots' log lines written while it was played.
//
// Every name, reason and log line comes from the tournament's entrants, so
// it is hostile: it goes into the page as text (textContent), never as HTML.

import { el } from "./svg.js";
import { decimal, has as guiHas, language, localNumber, onLanguageChange, t as guiText, wireLanguageMenu } from "./i18n.js";
import { firstPlayerChance, formatCount, formatTime, percentText } from "./score.js";
import { refereeReason } from "./tournament-reasons.js";
import { tr } from "./tournament-strings.js";

const POLL_MS = 1000;
// Width and height of the Elo bars' drawing (viewBox units).
const BAR_W = 220;
const BAR_H = 22;
// The Elo scale's half-width never drops below this (a field of equals
// would otherwise magnify noise) nor exceeds the second (one perfect score
// would squash everyone else).
const MIN_ELO_SPAN = 200;
const MAX_ELO_SPAN = 800;
// The colours of the first and second player, as the boards draw them.
const SIDE_COLOURS = {
  connect4: ["#e03c31", "#f2c500"],
  chess: ["#f8f8f8", "#111111"],
  othello: ["#111111", "#f8f8f8"],
  go: ["#111111", "#f8f8f8"],
  checkers: ["#222222", "#f3efe6"],
};
const SIDE_MARKS = { tictactoe: ["X", "O"] };

const $ = (id) => document.getElementById(id);

const app = {
  snapshot: null,
  createBoard: null,
  boardGame: null,
  cards: new Map(),
  viewer: null,
  connected: false,
};

// ----------------------------------------------------------------------
// Texts (js/tournament-strings.js), in the language js/i18n.js picked.

// The page's fixed texts: data-text="key" (content) and data-text-title="key".
function applyTexts() {
  document.documentElement.lang = language();
  for (const element of document.querySelectorAll("[data-text]")) element.textContent = tr(element.dataset.text);
  for (const element of document.querySelectorAll("[data-text-title]")) element.title = tr(element.dataset.textTitle);
}

// A game's name as the GUI shows it ("Connect Four"), else as the server names it.
function gameTitle(name) {
  const key = `game.${name}`;
  return guiHas(key) ? guiText(key) : name;
}

// ----------------------------------------------------------------------
// Small helpers.

function node(tag, text = null, className = null) {
  const element = document.createElement(tag);
  if (text !== null) element.textContent = String(text);
  if (className) element.className = className;
  return element;
}

function points(value) {
  return Number.isInteger(value) ? String(value) : decimal(value, 1);
}

function percent(value) {
  return value === null || value === undefined ? "–" : `${decimal(value * 100, 1)}%`;
}

// The server's Elo estimate (clients/tournament/display.py format_elo) in
// the page's language: "+12,5 ± 70,6", "n/d (poucos jogos)".
function eloText(text) {
  const value = String(text);
  if (/^n\/a \(no \w+\)$/.test(value)) return tr("elo.none");
  if (/^n\/a \(too few \w+\)$/.test(value)) return tr("elo.few");
  return localNumber(value.replace(" (no 95% bound)", ` ${tr("elo.nobound")}`));
}

// A player's mark: a disc in the board's colour, or the board's letter.
function sideMark(game, side) {
  const colours = SIDE_COLOURS[game];
  if (colours) {
    const svg = el("svg", { viewBox: "0 0 20 20", class: "side-mark", "aria-hidden": "true" });
    svg.append(el("circle", { cx: 10, cy: 10, r: 8, fill: colours[side], stroke: "#555", "stroke-width": 1.5 }));
    return svg;
  }
  const marks = SIDE_MARKS[game] || [tr("first"), tr("second")];
  return node("span", marks[side], "side-mark text");
}

function playerLine(game, names) {
  const line = node("div", null, "players");
  names.forEach((name, side) => {
    if (side === 1) line.append(node("span", tr("vs"), "vs"));
    const who = node("span", null, "player");
    who.append(sideMark(game, side), node("span", name, "player-name"));
    who.title = name;
    line.append(who);
  });
  return line;
}

async function boardModule(name) {
  if (/^[a-z0-9_]+$/.test(name)) {
    try {
      return (await import(`./boards/${name}.js`)).default;
    } catch {
      // no board drawn for this game: the generic one shows the position
    }
  }
  return (await import("./boards/generic.js")).default;
}

// The view a board module draws (clients/web/js/boards/README.md), never interactive.
function boardView(game, options, players, position, history, start, result) {
  return {
    state: {
      game,
      options,
      position: position.position,
      to_move: position.to_move,
      legal_moves: [],
      history,
      result: result || null,
    },
    players,
    lastMove: history.length ? history[history.length - 1] : null,
    interactive: false,
    flipped: false,
    start: start ?? null,
  };
}

// ----------------------------------------------------------------------
// Polling.

async function poll() {
  let data = null;
  try {
    const response = await fetch("api/snapshot", { cache: "no-cache" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    data = await response.json();
    setConnected(true, data);
  } catch {
    setConnected(false, app.snapshot);
  }
  if (data && (!app.snapshot || data.version !== app.snapshot.version)) {
    try {
      await render(data);
      app.snapshot = data;
    } catch (error) {
      console.error("the page could not be drawn:", error);  // drawn again at the next poll
    }
  }
  if (app.viewer && app.viewer.data && app.viewer.data.running) await refreshViewer();
  window.setTimeout(poll, POLL_MS);
}

function setConnected(connected, data) {
  const live = $("live");
  const state = data ? data.tournament.state : null;
  live.className = "live-status";
  if (!connected) {
    live.textContent = data ? tr("offline") : tr("connecting");
    live.classList.add("bad");
  } else if (state === "running") {
    live.textContent = tr("live");
    live.classList.add("good");
  } else {
    live.textContent = state === "stopped" ? tr("state.stopped") : tr("state.finished");
  }
}

// ----------------------------------------------------------------------
// The main view.

async function render(data) {
  const info = data.tournament;
  document.title = `${info.name} – ${tr("title")}`;
  $("title").textContent = info.name;
  $("subtitle").textContent = tr("subtitle", {
    game: gameTitle(info.game), control: info.time_control || tr("no.control"), count: info.engines.length,
  });
  $("progress").textContent = tr("progress", { played: info.played, games: info.games }) + (info.status ? ` · ${info.status}` : "");
  $("bar-fill").style.width = `${info.games ? (100 * info.played) / info.games : 100}%`;
  // Bots that cannot start, named with why.
  const leftOut = info.left_out || [];
  $("left-out").hidden = leftOut.length === 0;
  $("left-out").textContent = leftOut.length === 0 ? "" : tr("left.out", {
    bots: leftOut.map((bot) => `${bot.name} (${bot.why})`).join("; "),
  });
  if (app.boardGame !== info.game) {
    app.createBoard = await boardModule(info.game);
    app.boardGame = info.game;
  }
  renderStandings(data);
  renderGamePoints(data);
  renderCrosstable(data);
  renderRunning(data);
  renderFinished(data);
}

function eloSpan(rows) {
  let span = MIN_ELO_SPAN;
  for (const row of rows) {
    if (!row.elo || row.elo.text.startsWith("n/a")) continue;
    for (const value of [row.elo.elo, row.elo.low, row.elo.high]) {
      if (value !== null) span = Math.max(span, Math.abs(value));
    }
  }
  return Math.min(MAX_ELO_SPAN, Math.ceil(span / 100) * 100);
}

// The 95% interval as a bar on a scale shared by every row: a dot at the
// estimate, an arrow where a side is unbounded.
function eloBar(elo, span) {
  const svg = el("svg", { viewBox: `0 0 ${BAR_W} ${BAR_H}`, class: "elo-bar", "aria-hidden": "true" });
  const x = (value) => BAR_W / 2 + (Math.max(-span, Math.min(span, value)) / span) * (BAR_W / 2 - 6);
  svg.append(el("line", { x1: BAR_W / 2, y1: 2, x2: BAR_W / 2, y2: BAR_H - 2, class: "elo-zero" }));
  if (!elo || elo.text.startsWith("n/a")) return svg;
  const low = elo.low === null ? 2 : x(elo.low);
  const high = elo.high === null ? BAR_W - 2 : x(elo.high);
  svg.append(el("line", { x1: low, y1: BAR_H / 2, x2: high, y2: BAR_H / 2, class: "elo-interval" }));
  for (const [end, open, direction] of [[low, elo.low === null, -1], [high, elo.high === null, 1]]) {
    if (open) {
      svg.append(el("path", { d: `M ${end} ${BAR_H / 2} l ${-6 * direction} -5 l 0 10 z`, class: "elo-arrow" }));
    } else {
      svg.append(el("line", { x1: end, y1: BAR_H / 2 - 5, x2: end, y2: BAR_H / 2 + 5, class: "elo-interval" }));
    }
  }
  const centre = elo.elo === null ? (elo.low === null ? 4 : BAR_W - 4) : x(elo.elo);
  svg.append(el("circle", { cx: centre, cy: BAR_H / 2, r: 5, class: "elo-dot" }));
  return svg;
}

function renderStandings(data) {
  const body = $("standings").tBodies[0];
  const span = eloSpan(data.standings);
  body.replaceChildren(...data.standings.map((row) => {
    const line = document.createElement("tr");
    const name = node("td", row.name, "name");
    name.title = row.name;
    if (data.tournament.bots.includes(row.name)) name.append(node("span", tr("badge.bot"), "badge"));
    if (row.faults) {
      const faults = node("span", `⚠ ${row.faults}`, "badge bad");
      faults.title = tr("badge.faults", { count: row.faults });
      name.append(faults);
    }
    const elo = node("td", null, "elo");
    const inside = node("div", null, "elo-cell");
    inside.append(node("span", row.elo ? eloText(row.elo.text) : "–", "elo-text"), eloBar(row.elo, span));
    elo.append(inside);
    line.append(
      node("td", row.rank, "num"), name, node("td", row.games, "num"), node("td", points(row.points), "num strong"),
      node("td", percent(row.score), "num"), node("td", `${row.wins} ${row.draws} ${row.losses}`, "num wdl"), elo,
    );
    return line;
  }));
  const scale = $("standings").tHead.rows[0].lastElementChild;
  scale.title = tr("elo.scale", { span });
}

// Games of chance: the points as the games scored them, gammons counted
// (the standings count each game 1; a teacher's review of 2026-12-07).
function renderGamePoints(data) {
  const rows = data.game_points || [];
  $("game-points-panel").hidden = rows.length === 0;
  $("game-points").tBodies[0].replaceChildren(...rows.map((row) => {
    const line = document.createElement("tr");
    const name = node("td", row.name, "name");
    name.title = row.name;
    const signed = (value, digits = 0) => `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(digits)}`;
    line.append(
      name, node("td", row.games, "num"), node("td", row.won, "num"), node("td", row.lost, "num"),
      node("td", signed(row.net), "num strong"), node("td", signed(row.per_game, 3), "num"), node("td", row.gammons, "num"),
    );
    return line;
  }));
}

function renderCrosstable(data) {
  const order = data.standings.map((row) => row.engine);
  const names = data.tournament.engines;
  const table = $("crosstable");
  const head = document.createElement("tr");
  head.append(node("th", ""));
  order.forEach((engine, rank) => {
    const th = node("th", rank + 1, "num");
    th.title = names[engine];
    head.append(th);
  });
  const rows = order.map((engine, rank) => {
    const line = document.createElement("tr");
    const label = node("th", `${rank + 1}. ${names[engine]}`, "name");
    label.title = names[engine];
    line.append(label);
    for (const other of order) {
      const cell = data.crosstable[engine][other];
      if (cell === null) {
        line.append(node("td", "", "self"));
      } else if (cell.games === 0) {
        line.append(node("td", "·", "num empty"));
      } else {
        const td = node("td", `${points(cell.points)}/${cell.games}`, "num");
        const share = cell.points / cell.games;
        td.classList.add(share > 0.5 ? "ahead" : share < 0.5 ? "behind" : "level");
        td.title = tr("crosstable.cell", { row: names[engine], column: names[other], points: points(cell.points), games: cell.games });
        line.append(td);
      }
    }
    return line;
  });
  table.replaceChildren(head, ...rows);
}

function renderRunning(data) {
  const info = data.tournament;
  const container = $("running");
  const seen = new Set();
  for (const game of data.running) {
    seen.add(game.id);
    let card = app.cards.get(game.id);
    if (!card) {
      const element = node("button", null, "game-card");
      element.type = "button";
      element.dataset.game = String(game.id);
      const title = node("div", null, "card-title");
      const boardBox = node("div", null, "board card-board");
      element.append(title, playerLine(info.game, game.players), boardBox);
      element.addEventListener("click", () => openViewer(game.id));
      card = { element, title, board: app.createBoard(boardBox, { play() {}, note() {} }), ply: -1 };
      app.cards.set(game.id, card);
      container.append(element);
    }
    card.title.textContent = tr("card", { id: game.id, round: game.round, ply: game.plies });
    if (card.ply !== game.plies) {
      card.ply = game.plies;
      const position = { position: game.position, to_move: game.to_move };
      card.board.update(boardView(info.game, info.options, game.players, position, game.history, game.start, null));
    }
  }
  for (const [id, card] of app.cards) {
    if (!seen.has(id)) {
      card.element.remove();
      app.cards.delete(id);
    }
  }
  $("running-count").textContent = data.running.length ? tr("running.count", { count: data.running.length }) : "";
  $("running-empty").hidden = data.running.length > 0;
}

function renderFinished(data) {
  const body = $("finished").tBodies[0];
  body.replaceChildren(...data.finished.map((game) => {
    const line = document.createElement("tr");
    line.className = "clickable-row";
    line.tabIndex = 0;
    line.dataset.game = String(game.id);
    const cells = game.players.map((name, side) => {
      const td = node("td", null, "name");
      td.append(sideMark(data.tournament.game, side), node("span", name));
      if (game.winner === side) td.classList.add("winner");
      if (game.engine_errors[side]) {
        const badge = node("span", `⚠ ${game.engine_errors[side]}`, "badge bad");
        badge.title = tr("badge.errors", { count: game.engine_errors[side] });
        td.append(badge);
      }
      td.title = name;
      return td;
    });
    const reason = refereeReason(game.reason, game.kind, game.players);
    const how = node("td", reason, `reason ${game.kind}`);
    how.title = reason;
    line.append(node("td", game.id, "num"), ...cells, node("td", game.result, "result"), how, node("td", game.plies, "num"));
    line.addEventListener("click", () => openViewer(game.id));
    line.addEventListener("keydown", (event) => {
      if (event.key === "Enter") openViewer(game.id);
    });
    return line;
  }));
}

// ----------------------------------------------------------------------
// The replay.

async function fetchGame(id) {
  const response = await fetch(`api/game/${id}`, { cache: "no-store" });
  if (!response.ok) throw new Error(response.status === 404 ? tr("no.game") : `HTTP ${response.status}`);
  return response.json();
}

async function openViewer(id) {
  if (!Number.isInteger(id)) return;
  if (window.location.hash !== `#game-${id}`) history.replaceState(null, "", `#game-${id}`);
  const game = app.snapshot ? app.snapshot.tournament.game : null;
  if (game && app.boardGame !== game) {
    app.createBoard = await boardModule(game);
    app.boardGame = game;
  }
  const box = $("viewer-board");
  box.replaceChildren();
  app.viewer = { id, data: null, ply: 0, follow: true, board: null };
  $("viewer").hidden = false;
  $("viewer-title").textContent = tr("game.title.short", { id });
  $("viewer-result").textContent = tr("loading");
  try {
    const data = await fetchGame(id);
    if (!app.viewer || app.viewer.id !== id) return;
    if (app.boardGame !== data.game) {
      app.createBoard = await boardModule(data.game);
      app.boardGame = data.game;
    }
    app.viewer.board = app.createBoard(box, { play() {}, note: (text) => { $("viewer-note").textContent = text; } });
    showGame(data);
  } catch (error) {
    $("viewer-result").textContent = String(error.message || error);
  }
  $("viewer-close").focus();
}

async function refreshViewer() {
  const viewer = app.viewer;
  try {
    const data = await fetchGame(viewer.id);
    if (app.viewer === viewer) showGame(data);
  } catch {
    // the next poll tries again
  }
}

function showGame(data) {
  const viewer = app.viewer;
  const last = data.moves.length;
  const grew = !viewer.data || viewer.data.moves.length !== last || viewer.data.running !== data.running;
  viewer.data = data;
  if (viewer.follow) viewer.ply = last;
  $("viewer-title").textContent = tr("game.title", { id: data.id, round: data.round });
  const head = $("viewer-result");
  head.replaceChildren(playerLine(data.game, data.players));
  const status = data.result
    ? `${data.result.result} · ${refereeReason(data.result.reason, data.result.kind, data.players)}`
    : tr("in.progress");
  head.append(node("div", status, data.result ? `status ${data.result.kind}` : "status running"));
  if (grew) renderMoves(data);
  renderLogs(data);
  showPly(viewer.ply);
}

function renderMoves(data) {
  const list = $("viewer-moves");
  list.replaceChildren(...data.moves.map((move, index) => {
    const item = node("li", null, "ply");
    item.dataset.ply = String(index + 1);
    item.append(node("span", `${index + 1}.`, "ply-number"), node("span", move.move, "move-text"));
    if (move.book) item.append(node("span", tr("tag.book"), "tag"));
    if (move.roll) item.append(node("span", tr("tag.dice"), "tag"));
    if (move.reason === "engine_error") item.append(node("span", tr("tag.error"), "tag bad"));
    item.addEventListener("click", () => {
      app.viewer.follow = index + 1 === data.moves.length;
      showPly(index + 1);
    });
    return item;
  }));
}

function renderLogs(data) {
  const box = $("viewer-logs");
  const parts = [];
  for (const [name, excerpt] of Object.entries(data.logs || {})) {
    parts.push(node("h3", tr("log.title", { name })));
    if (excerpt.missing) {
      parts.push(node("p", tr("log.missing"), "hint"));
      continue;
    }
    if (excerpt.cut) parts.push(node("p", tr("log.cut"), "hint"));
    parts.push(node("pre", excerpt.lines.length ? excerpt.lines.join("\n") : tr("log.empty"), "log"));
  }
  if (data.logs_note === "earlier") parts.push(node("p", tr("log.earlier"), "hint"));
  if (data.logs_note === "dropped") parts.push(node("p", tr("log.dropped"), "hint"));
  box.replaceChildren(...parts);
}

// The move, who played it, then the engine's figures, set apart by " · ".
function describeMove(move, index, data) {
  if (!move) return tr("move.start");
  let head = `${index}. ${move.move}`;
  const mover = data.positions[index - 1].to_move;
  if (mover === 0 || mover === 1) head += ` ${tr("move.by", { name: data.players[mover] })}`;
  const parts = [head];
  if (move.book) parts.push(tr("move.book"));
  if (move.roll) parts.push(tr("move.dice"));
  // A Monte Carlo search says how many playouts it made, which say more than its depth.
  if (move.playouts !== undefined) parts.push(tr("move.playouts", { count: formatCount(move.playouts) }));
  else if (move.depth !== undefined) parts.push(tr("move.depth", { depth: move.depth }));
  if (move.score) {
    const score = move.score;
    if (score.win_in !== undefined) parts.push(tr("move.win", { plies: score.win_in }));
    else if (score.loss_in !== undefined) parts.push(tr("move.loss", { plies: score.loss_in }));
    else if (score.draw) parts.push(tr("move.draw"));
    else if (chanceScale(move, mover)) parts.push(tr("move.chance", { name: data.players[0], percent: percentText(firstPlayerChance(score.value, mover, move.win_odds_scale)) }));
    else if (score.value !== undefined) parts.push(tr("move.score", { score: `${score.value > 0 ? "+" : ""}${score.value}` }));
  }
  if (move.time_ms !== undefined) parts.push(formatTime(move.time_ms));
  const text = parts.join(" · ");
  return move.reason === "engine_error" ? `${text} ${tr("move.error")}` : text;
}

// Whether a move's score is a Monte Carlo win rate the page can show as one:
// a search that counted playouts, on a server that said its game's
// win_odds_scale (the record carries it), by a player who moved (the score
// is from the mover's side; the page shows the first player's chance, as
// the Play page does).
function chanceScale(move, mover) {
  return move.playouts !== undefined && move.win_odds_scale > 0 && typeof move.score.value === "number"
    && (mover === 0 || mover === 1);
}

function showPly(ply) {
  const viewer = app.viewer;
  const data = viewer && viewer.data;
  if (!data || !viewer.board) return;
  const last = data.moves.length;
  viewer.ply = Math.max(0, Math.min(last, ply));
  const history = data.moves.slice(0, viewer.ply).map((move) => move.move);
  const result = data.result && viewer.ply === last ? data.result : null;
  $("viewer-note").textContent = "";
  viewer.board.update(boardView(data.game, data.options, data.players, data.positions[viewer.ply], history, data.start, result));
  $("nav-ply").textContent = `${viewer.ply} / ${last}`;
  const move = data.moves[viewer.ply - 1];
  $("move-info").textContent = describeMove(move, viewer.ply, data);
  // As on the Play page, a win rate's title says what it is.
  const chance = move && move.score && chanceScale(move, data.positions[viewer.ply - 1].to_move);
  $("move-info").title = chance ? guiText("score.chance.title", { name: data.players[0] }) : "";
  for (const item of $("viewer-moves").children) {
    item.classList.toggle("current", Number(item.dataset.ply) === viewer.ply);
  }
  const current = $("viewer-moves").querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function step(to) {
  if (!app.viewer || !app.viewer.data) return;
  const last = app.viewer.data.moves.length;
  const ply = to(app.viewer.ply, last);
  app.viewer.follow = ply >= last;
  showPly(ply);
}

function closeViewer() {
  app.viewer = null;
  $("viewer").hidden = true;
  $("viewer-board").replaceChildren();
  $("viewer-logs").replaceChildren();
  if (window.location.hash) history.replaceState(null, "", window.location.pathname);
}

function hashGame() {
  const match = /^#game-(\d{1,9})$/.exec(window.location.hash);
  return match ? Number(match[1]) : null;
}

$("viewer-close").addEventListener("click", closeViewer);
$("viewer").addEventListener("click", (event) => {
  if (event.target === $("viewer")) closeViewer();
});
$("nav-start").addEventListener("click", () => step(() => 0));
$("nav-back").addEventListener("click", () => step((ply) => ply - 1));
$("nav-forward").addEventListener("click", () => step((ply) => ply + 1));
$("nav-end").addEventListener("click", () => step((ply, last) => last));
document.addEventListener("keydown", (event) => {
  if (!app.viewer) return;
  const moves = { ArrowLeft: (ply) => ply - 1, ArrowRight: (ply) => ply + 1, Home: () => 0, End: (ply, last) => last };
  if (event.key === "Escape") closeViewer();
  else if (moves[event.key]) step(moves[event.key]);
  else return;
  event.preventDefault();
});
window.addEventListener("hashchange", () => {
  const id = hashGame();
  if (id !== null && (!app.viewer || app.viewer.id !== id)) openViewer(id);
});

applyTexts();
wireLanguageMenu($("lang"));
onLanguageChange(() => {
  // Everything built from the snapshot is drawn again in the new language.
  applyTexts();
  for (const card of app.cards.values()) card.element.remove();
  app.cards.clear();
  if (app.snapshot) render(app.snapshot);
  if (app.viewer && app.viewer.data) {
    const data = app.viewer.data;
    app.viewer.data = null;
    showGame(data);
  }
});

poll().then(() => {
  const id = hashGame();
  if (id !== null) openViewer(id);
});
