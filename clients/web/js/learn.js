// The Learn page: draws the engine's own search trees (the server's
// `trace` of a position) to teach minimax, alpha-beta and expectiminimax.
// Pick a game and a position (or a textbook tree), a search and a depth;
// step through the search with alpha and beta as the textbook's tables
// have them; compare the searches side by side; export the drawing. Monte
// Carlo tree search draws the tree it grew, and its steps replay the growth.

import { rescueFocus, watchFocus } from "./focus.js";
import { serverName } from "./server-words.js";
import { Connection, EngineError, errorText as engineErrorText, serverUrl } from "./connection.js";
import { keyBelongsElsewhere, runShortcut } from "./keys.js";
import { EXAMPLES, example } from "./learn-examples.js";
import { Trace, branchingFactor, cutTestFired, formatValue, formatWinsVisits, playerName } from "./learn-model.js";
import { COMPACT, initialExpansion, layout } from "./learn-layout.js";
import { drawTree, pngBlob, svgDocument } from "./learn-draw.js";
import { locate, programFor } from "./learn-code.js";
import { applies, askedAt, candidateLeaves, check, formatQuestions, nodeAt, parseQuestions, prompt } from "./learn-predict.js";
import { applyStatic, decimal, has, onLanguageChange, t, wireLanguageMenu } from "./i18n.js";

const $ = (id) => document.getElementById(id);

const TREE = "tree";
const TOKEN_KEY = "arena-token";
// The searches a trace can run (their names: strings.js, "alg.<name>").
const ALGORITHMS = ["minimax", "alphabeta", "alphabeta_ordered", "negamax", "expectiminimax", "mcts"];
const algorithmName = (name) => (ALGORITHMS.includes(name) ? t(`alg.${name}`) : name);
const MCTS = "mcts";
const EXPECTIMINIMAX = "expectiminimax";
// The step table's columns: the search's events, or MCTS's playouts.
const COLUMNS = ["col.step", "col.event", "col.node", "col.alpha", "col.beta", "col.value"];
const MCTS_COLUMNS = ["col.playout", "col.added", "col.result", "col.root.stats"];
const COMPARED = ["minimax", "alphabeta", "alphabeta_ordered"];
const DEFAULT_EXAMPLE = "notes-alphabeta";
// Zoom: "fit" scales the drawing to the panel, between these bounds (below
// the smallest the labels are too small to read: the panel scrolls). At
// three quarters the smallest texts, the α/β windows (10.5 units) and the
// moves on the edges (11), are about 8 CSS pixels and the values 10; at
// half size, which the notes' nine-leaf tree would need on a 390-pixel
// phone, they were 6 px (the review of 2026-11-29, on Chromium's
// screenshots): there the tree pans, or the phone is turned sideways.
const FIT_MIN = 0.75;
const FIT_MAX = 1.8;
const ZOOM_STEP = 1.25;
const ZOOM_MIN = 0.2;
const ZOOM_MAX = 4;
// A tree of more drawn items than this that does not fit the panel at the
// smallest fit opens on its principal line (a textbook tree always opens whole).
const WIDE_TREE_ITEMS = 40;
// The most nodes "Expand all" draws: past it a drawing is unreadable and slow.
const DRAW_LIMIT = 3000;
// Rows of the step table drawn at once around the current step.
const TABLE_WINDOW = 400;

const app = {
  conn: null,
  games: [],
  trace: null,
  index: 0,
  expanded: new Set(),
  showAll: new Set(),
  collapsed: false,
  layout: null,
  playing: null, // the play timer
  busy: false,
  again: false, // a search was asked for while busy: run it when done
  tableStart: 0,
  tableEnd: 0,
  compared: null, // the spec the side-by-side was made for
  compareDue: false, // a side-by-side to make once classroom mode shows the answer
  // Classroom mode: nothing the search has not done yet is shown (see render).
  classroom: false,
  zoom: "fit", // or a scale
  // Predict, then reveal: [{question, index (the step it is asked at), done, result}].
  questions: [],
  reveal: null, // the question just answered: its result is shown until the next step
  blocked: null, // the question the student tried to step past
  picked: new Set(), // leaves clicked for a prune question
  example: null,
  note: "",
  // The message box's text as a function of the page's language (say), so
  // that a change of language writes it again; null for plain text.
  sayAgain: null,
};

// ---------------------------------------------------------------------------
// The connection.

let reconnectDelay = 500;

function storedToken() {
  const fromUrl = new URLSearchParams(window.location.search).get("token");
  if (fromUrl) return fromUrl;
  try {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return "";
  }
}

async function connect(first) {
  const conn = new Connection(serverUrl(window.location));
  conn.onClose = (event) => {
    if (app.conn === conn) app.conn = null;
    if (event.code === 1008) {
      setStatus(t("status.token"), "bad");
      say(t("learn.token"), "error");
      return;
    }
    setStatus(t("status.reconnecting", { seconds: decimal(reconnectDelay / 1000, 1) }), "bad");
    setTimeout(() => connect(false), reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 15000);
  };
  try {
    await conn.open();
  } catch {
    setStatus(t("status.noserver", { seconds: decimal(reconnectDelay / 1000, 1) }), "bad");
    setTimeout(() => connect(first), reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 15000);
    return;
  }
  const hello = { type: "hello", protocol: 1, client: "web GUI (learn)" };
  const token = storedToken();
  if (token) hello.token = token;
  let welcome;
  try {
    welcome = await conn.request(hello);
  } catch (error) {
    say(error.message, "error");
    return;
  }
  app.conn = conn;
  reconnectDelay = 500;
  app.serverText = welcome.server;
  setStatus(serverName(welcome.server), "good");
  app.games = welcome.games || [];
  fillGames();
  if (first) {
    applyUrl(new URLSearchParams(window.location.search));
    await drawSearch();
  }
}

// ---------------------------------------------------------------------------
// The form.

function fillGames() {
  const menu = $("learn-game");
  const previous = menu.value;
  const games = app.games.some((g) => g.name === TREE) ? app.games : [{ name: TREE }, ...app.games];
  const title = (g) => (g.name === TREE ? t("learn.game.tree") : has(`game.${g.name}`) ? t(`game.${g.name}`) : g.title || g.name);
  menu.replaceChildren(...games.map((g) => new Option(title(g), g.name)));
  menu.value = previous && games.some((g) => g.name === previous) ? previous : TREE;
  gameChosen();
}

function fillAlgorithms() {
  const previous = $("learn-algorithm").value || "alphabeta";
  $("learn-algorithm").replaceChildren(...ALGORITHMS.map((name) => new Option(algorithmName(name), name)));
  $("learn-algorithm").value = previous;
}

function gameChosen() {
  const tree = $("learn-game").value === TREE;
  $("learn-moves-label").hidden = tree;
  $("learn-options-label").hidden = tree;
  $("learn-depth").placeholder = tree ? t("learn.depth.whole") : "2";
  $("position-help").textContent = t(tree ? "learn.position.help.tree" : "learn.position.help.game");
}

// MCTS runs playouts, not plies: its fields replace the depth.
function algorithmChosen() {
  const mcts = $("learn-algorithm").value === MCTS;
  $("learn-depth-label").hidden = mcts;
  $("learn-playouts-label").hidden = !mcts;
  $("learn-seed-label").hidden = !mcts;
}

function applyExample(entry) {
  $("learn-game").value = entry.game || TREE;
  gameChosen();
  $("learn-position").value = entry.position;
  $("learn-moves").value = "";
  $("learn-options").value = "";
  $("learn-algorithm").value = entry.algorithm;
  $("learn-depth").value = entry.depth;
  $("learn-ask").value = entry.ask || "";
  if (entry.playouts) $("learn-playouts").value = entry.playouts;
  if (entry.seed !== undefined) $("learn-seed").value = entry.seed;
  algorithmChosen();
  app.example = entry;
  app.note = "";
  for (const button of $("examples").querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(button.dataset.example === entry.key));
  }
}

// ?example=notes, or ?game=chess&position=...&moves=e2e4 e7e5&options={...}
// (the main page's link), with &algorithm= and &depth= (&playouts= and &seed= for mcts).
function applyUrl(params) {
  const game = params.get("game");
  const chosen = example(params.get("example") || (game ? "" : DEFAULT_EXAMPLE));
  if (chosen) applyExample(chosen);
  if (game) {
    if (![...$("learn-game").options].some((option) => option.value === game)) {
      say(t("learn.nogame", { game }), "error");
    } else {
      $("learn-game").value = game;
      gameChosen();
      $("learn-position").value = params.get("position") || "";
      $("learn-moves").value = params.get("moves") || "";
      $("learn-options").value = params.get("options") || "";
      app.example = null;
      app.note = game === TREE ? "" : "learn.from.play";
      $("example-note").textContent = app.note ? t(app.note) : "";
    }
  }
  const algorithm = params.get("algorithm");
  app.algorithmNamed = Boolean(chosen) && !game;
  if (algorithm && ALGORITHMS.includes(algorithm)) {
    $("learn-algorithm").value = algorithm;
    app.algorithmNamed = true;
  }
  const depth = params.get("depth");
  if (depth !== null) $("learn-depth").value = depth;
  for (const name of ["playouts", "seed"]) {
    const value = params.get(name);
    if (value !== null) $(`learn-${name}`).value = value;
  }
  algorithmChosen();
  const ask = params.get("ask");
  if (ask !== null) {
    $("learn-ask").value = ask;
    if (!chosen || game) app.example = { key: "custom", ask, custom: true, title: params.get("title") || "" };
  }
  // An exercise asks before it reveals, as a click on it does, unless the
  // address says otherwise (&classroom=0: the solved view, for the teacher).
  const classroom = params.get("classroom");
  const asks = Boolean(app.example && app.example.ask);
  const on = classroom === null ? asks : ["1", "true", "on"].includes(classroom);
  setClassroom(on, false);
}

function readSpec() {
  const game = $("learn-game").value;
  const spec = { game, position: $("learn-position").value.trim(), moves: [], options: {} };
  if (game !== TREE) {
    spec.moves = $("learn-moves").value.split(/\s+/).filter(Boolean);
    const options = $("learn-options").value.trim();
    if (options) {
      try {
        spec.options = JSON.parse(options);
      } catch {
        throw new Error(t("learn.options.bad", { options }));
      }
    }
  }
  const depth = $("learn-depth").value.trim();
  spec.depth = depth === "" ? null : Number(depth);
  const limit = $("learn-max-nodes").value.trim();
  spec.maxNodes = limit === "" ? null : Number(limit);
  spec.algorithm = $("learn-algorithm").value;
  const playouts = $("learn-playouts").value.trim();
  spec.playouts = playouts === "" ? null : Number(playouts);
  const seed = $("learn-seed").value.trim();
  spec.seed = seed === "" ? null : Number(seed);
  spec.ask = $("learn-ask").value.trim();
  return spec;
}

// Whether the side by side drawn for `b` serves `a` too (MCTS is not in it).
function sameSearchInput(a, b) {
  const comparedAlone = (algorithm) => COMPARED.includes(algorithm) || algorithm === MCTS;
  return a && b && a.game === b.game && (a.algorithm === b.algorithm || comparedAlone(a.algorithm) && comparedAlone(b.algorithm)) && a.position === b.position && a.moves.join(" ") === b.moves.join(" ") &&
    JSON.stringify(a.options) === JSON.stringify(b.options) && a.depth === b.depth && a.maxNodes === b.maxNodes;
}

// ---------------------------------------------------------------------------
// Asking the server.

async function startPosition(spec) {
  const message = { type: "new_game", game: spec.game };
  if (Object.keys(spec.options).length > 0) message.options = spec.options;
  if (spec.position) message.position = spec.position;
  if (spec.moves.length > 0) message.moves = spec.moves;
  return app.conn.request(message);
}

async function requestTrace(spec, algorithm) {
  const message = { type: "trace", algorithm };
  if (algorithm === MCTS) {
    if (spec.playouts !== null) message.playouts = spec.playouts;
    if (spec.seed !== null) message.seed = spec.seed;
  } else if (spec.depth !== null) message.depth = spec.depth;
  if (spec.maxNodes !== null) message.max_nodes = spec.maxNodes;
  return app.conn.request(message);
}

// Whether a tree of the notes' notation holds a chance node ({"p": [...], "c": [...]}).
function hasChanceNodes(tree) {
  if (Array.isArray(tree)) return tree.some(hasChanceNodes);
  return tree !== null && typeof tree === "object" && (Array.isArray(tree.p) || hasChanceNodes(tree.c ?? null));
}

function parsedTree(spec) {
  if (spec.game !== TREE) return null;
  try {
    return JSON.parse(spec.position.replace(/^\s*(max|min)\s+/i, ""));
  } catch {
    return null;
  }
}

async function drawSearch() {
  if (!app.conn) return;
  if (app.busy) {
    app.again = true;
    return;
  }
  let spec;
  try {
    spec = readSpec();
  } catch (error) {
    // Read again in the new language when it changes (readSpec only reads the form).
    say(() => {
      try {
        readSpec();
        return error.message;
      } catch (again) {
        return again.message;
      }
    }, "error");
    return;
  }
  stopPlaying();
  app.busy = true;
  updateButtons();
  say(() => t("learn.searching"), "hint");
  try {
    const state = await startPosition(spec);
    // Dice at the root and no search named: the one with chance nodes (the
    // server's own default), rather than an error.
    if (state.to_move === "chance" && !app.algorithmNamed && !["expectiminimax", MCTS].includes(spec.algorithm)) {
      spec.algorithm = "expectiminimax";
      $("learn-algorithm").value = spec.algorithm;
      algorithmChosen();
      app.note = "learn.chance.switch";
    }
    const reply = await requestTrace(spec, spec.algorithm);
    showTrace(new Trace(reply, parsedTree(spec)), spec);
    const leftOut = app.leftOut || [];
    say(leftOut.length ? () => t("predict.left.out", { questions: formatQuestions(leftOut) }) : "");
  } catch (error) {
    say(() => errorText(error, spec), "error");
    app.busy = false;
    updateButtons();
    if (app.again) {
      app.again = false;
      await drawSearch();
    }
    return;
  }
  app.busy = false;
  updateButtons();
  if (!sameSearchInput(spec, app.compared)) await compare();
  if (app.again) {
    app.again = false;
    await drawSearch();
  }
}

// ---------------------------------------------------------------------------
// The drawing and the steps.

function showTrace(trace, spec) {
  app.trace = trace;
  app.spec = spec;
  app.index = app.classroom ? 0 : trace.lastIndex;
  const start = initialExpansion(trace);
  // A big tree opens folded on its principal line, which in classroom mode
  // would show the answer: there it opens on the root's moves.
  if (app.classroom && start.collapsed) start.expanded = new Set([trace.root]);
  app.expanded = start.expanded;
  app.collapsed = start.collapsed;
  app.showAll = new Set();
  setQuestions(trace, spec);
  renderTitle();
  // MCTS's value is MAX's win rate at the root, its leaves the playouts.
  $("legend-minimax").hidden = trace.mcts;
  $("legend-mcts").hidden = !trace.mcts;

  app.tableStart = 0;
  app.tableEnd = 0;
  $("learn-steps").classList.toggle("no-windows", !trace.hasWindows && !trace.mcts);

  relayout();
  // A tree too wide to read in the panel even fitted opens on its principal line.
  if (!app.collapsed && app.layout.items.length > WIDE_TREE_ITEMS && app.layout.width * FIT_MIN > $("learn-tree").clientWidth) {
    app.expanded = new Set(app.classroom ? [trace.root] : trace.principal);
    app.collapsed = true;
    relayout();
  }
  render(false);
  // A wide tree opens with its root in view and, once the answer may be
  // shown, the principal line's first move beside it (the review of
  // 2026-12-06 found it off the left edge). Positions are measured on the
  // screen: the drawing may be scaled (getBBox's units are the drawing's).
  const box = $("learn-tree");
  const root = box.querySelector('.tree-node[data-path="root"]');
  if (!root) return;
  const centre = (node) => {
    const rect = node.getBoundingClientRect();
    return box.scrollLeft + rect.left - box.getBoundingClientRect().left + rect.width / 2;
  };
  let target = centre(root);
  const first = classroomWithholds() ? null : trace.root.children.find((child) => trace.principal.has(child));
  const drawn = first ? box.querySelector(`.tree-node[data-path="${CSS.escape(first.path)}"]`) : null;
  if (drawn) target = (target + centre(drawn)) / 2;
  box.scrollLeft = Math.max(0, target - box.clientWidth / 2);
}

// MCTS lays out the tree as grown by the step shown (see layout's `visible`).
function relayout() {
  const trace = app.trace;
  const index = app.index;
  const visible = trace.mcts ? (node) => node.enterIndex <= index : null;
  const event = trace.events[index];
  const keep = event && event.node ? new Set(trace.lineage(event.node)) : null;
  app.layout = layout(trace, app.expanded, app.showAll, { visible, keep });
}

// The texts that depend on the trace and the language only.
function renderTitle() {
  const trace = app.trace;
  const spec = app.spec;
  const name = algorithmName(trace.algorithm);
  $("learn-title").textContent = trace.mcts
    ? t("title.mcts", { name, playouts: trace.playouts, seed: spec.seed ?? 1, height: trace.reply.depth })
    : trace.reply.depth ? t("title.depth", { name, depth: trace.reply.depth }) : name;
  // "α β as the search goes" only where there are windows: the
  // expectiminimax and minimax tables have none (a teacher's review, 2026-12-07).
  const subtitle = trace.mcts ? "steps.subtitle.mcts" : trace.hasWindows ? "steps.subtitle" : "steps.subtitle.plain";
  $("steps-subtitle").textContent = t(subtitle);
  $("learn-steps").tHead.rows[0].replaceChildren(...(trace.mcts ? MCTS_COLUMNS : COLUMNS).map((key) => {
    const th = document.createElement("th");
    th.textContent = t(key);
    return th;
  }));
}

function render(follow = true) {
  const trace = app.trace;
  if (!trace) return;
  // In classroom mode the label, which the exported SVG keeps too, says
  // nothing the search has not shown yet.
  const label = app.classroom && app.index < trace.lastIndex
    ? t("aria.tree.classroom", { name: trace.mcts ? algorithmName(MCTS) : algorithmName(trace.algorithm) })
    : trace.mcts
      ? t("aria.tree.mcts", { visited: trace.visited, playouts: trace.playouts, rate: decimal(trace.value, 2) })
      : t("aria.tree", { name: algorithmName(trace.algorithm), value: formatValue(trace.value), visited: trace.visited, leaves: trace.leaves });
  const asking = currentQuestion();
  const answered = answeredHere();
  const pickQuestion = asking?.question.kind === "prune" ? asking : answered?.question.kind === "prune" ? answered : null;
  drawTree($("learn-tree"), trace, app.layout, app.index, {
    label,
    classroom: app.classroom,
    givens: Boolean(asking || answered) && app.spec?.game === TREE,
    pick: pickQuestion ? {
      candidates: new Set(candidateLeaves(trace, pickQuestion.question.path)),
      selected: app.picked,
      marks: pickQuestion.done && pickQuestion.result ? pickQuestion.result.marks : null,
      onPick: (path) => {
        if (app.picked.has(path)) app.picked.delete(path);
        else app.picked.add(path);
        // Drawn again, the tree loses the leaf that had the focus: it goes
        // back to the leaf just chosen, so that Tab goes on to the next one
        // (a review of 2026-12-07: the focus fell to the page and the next
        // Tab started again from the first leaf).
        const focused = document.activeElement?.closest?.("[data-path]")?.dataset.path ?? null;
        render(false);
        if (focused === path) {
          const again = [...$("learn-tree").querySelectorAll("[data-path]")].find((node) => node.dataset.path === path && node.tabIndex >= 0);
          again?.focus();
        }
      },
    } : null,
    onToggle: toggleNode,
    onShowAll: (node) => {
      app.showAll.add(node);
      relayout();
      render(false);
    },
  });
  applyZoom();
  const event = trace.events[app.index];
  // MCTS counts its steps as playouts: step k is the tree after k of them.
  // In classroom mode the number of steps waits for the last one: two steps
  // a node visited, it told how many nodes alpha-beta prunes before the
  // question asked it (a teacher's review, 2026-12-07: 22 steps, 11 nodes).
  $("step-counter").textContent = trace.mcts
    ? t("counter.playout", { step: event.step, total: trace.playouts })
    : classroomWithholds()
      ? t("counter.step.open", { step: app.index + 1 })
      : t("counter.step", { step: app.index + 1, total: trace.events.length });
  $("step-text").textContent = describeEvent(trace, event);
  renderSummary();
  renderWithheld();
  renderCode();
  renderPredict();
  renderTable(follow);
  updateButtons();
  // A question's Check, Skip and choices are gone once answered: the
  // answer's text takes the focus; a step button disabled at the end gives
  // it to its neighbours.
  rescueFocus(() => (!$("predict").hidden ? $("predict-result") : $("learn-tree")));
  if (follow) {
    const halo = $("learn-tree").querySelector(".tree-current-halo");
    if (halo) halo.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
}

// The summary: the search's results, or in classroom mode before the last
// step, the counts so far and "?" for what is still to be found.
function renderSummary() {
  const trace = app.trace;
  const withheld = app.classroom && app.index < trace.lastIndex;
  const unknown = (id) => {
    $(id).textContent = t("classroom.unknown");
    $(id).title = t("classroom.unknown.title");
  };
  if (withheld) {
    unknown("s-value");
    unknown("s-best");
    unknown("s-ebf");
    let visited = 0;
    let leaves = 0;
    if (trace.mcts) {
      // The tree as grown so far, and the playouts made.
      visited = trace.nodes.filter((node) => node.enterIndex <= app.index).length;
      leaves = trace.events[app.index].step;
    } else {
      for (const event of trace.events.slice(0, app.index + 1)) {
        if (event.kind === "exit") continue;
        visited += 1;
        if (event.node.children.length === 0) leaves += 1;
      }
    }
    $("s-visited").textContent = String(visited);
    $("s-leaves").textContent = String(leaves);
  } else {
    $("s-value").textContent = trace.mcts ? decimal(trace.value, 2) : formatValue(trace.value);
    $("s-value").title = trace.mcts ? t("summary.mcts.value", { stats: formatWinsVisits(trace.root) }) : "";
    const best = bestMoveText(trace);
    $("s-best").textContent = best.text;
    $("s-best").title = best.title;
    $("s-visited").textContent = String(trace.visited);
    $("s-leaves").textContent = String(trace.leaves);
    const ebf = trace.effectiveBranching;
    $("s-ebf").textContent = ebf === null ? "–" : decimal(ebf, 2);
    $("s-ebf").title = "";
  }
  $("s-visited-label").textContent = t(withheld && !trace.mcts ? "summary.visited.sofar" : trace.mcts ? "summary.tree.nodes" : "summary.visited");
  $("s-leaves-label").textContent = t(withheld && !trace.mcts ? "summary.leaves.sofar" : trace.mcts ? "summary.playouts" : "summary.leaves");
}

// The pseudocode of the search beside the tree, the line the current step
// executes highlighted, and the local variables there.
function renderCode() {
  const trace = app.trace;
  // A depth limit, or a position of a game (always searched to a depth):
  // the cut-off test is part of the program.
  const limited = app.spec?.game !== TREE || (app.spec?.depth ?? null) !== null || trace.nodes.some((node) => node.kind === "cutoff");
  const program = programFor(trace.algorithm, limited);
  const box = $("learn-code");
  if (box.dataset.program !== program.name || box.dataset.lang !== document.documentElement.lang) {
    box.replaceChildren(...program.lines.map((key) => {
      const line = document.createElement("span");
      line.className = `code-line${/head|decision$|search$/.test(key) ? " head" : ""}`;
      line.dataset.line = key;
      line.textContent = key ? t(`code.${key}`) : " ";
      return line;
    }));
    box.dataset.program = program.name;
    box.dataset.lang = document.documentElement.lang;
  }
  const captions = {
    minimax: ["code.caption.minimax"],
    alphabeta: ["code.caption.alphabeta"],
    alphabeta_ordered: ["code.caption.alphabeta", "code.caption.ordered"],
    negamax: ["code.caption.negamax", "code.caption.alphabeta"],
    expectiminimax: ["code.caption.expectiminimax"],
    mcts: ["code.caption.mcts"],
  }[trace.algorithm] || [];
  $("code-caption").textContent = captions.map((key) => t(key)).join(" ");
  const at = locate(trace, app.index, app.phase ?? null);
  for (const line of box.children) {
    const current = at.lines.includes(line.dataset.line);
    line.classList.toggle("current", current);
    line.classList.toggle("cut", current && /\.cut$/.test(line.dataset.line));
    if (current) line.setAttribute("aria-current", "step");
    else line.removeAttribute("aria-current");
  }
  $("learn-locals").replaceChildren(...at.locals.map(([name, value]) => {
    const item = document.createElement("span");
    item.className = "var";
    item.dataset.name = name;
    const label = document.createElement("b");
    label.textContent = name;
    item.append(label, ` = ${value}`);
    return item;
  }));
}

// The best move as the summary says it: the trace's, else (a chance node at
// the root: no move before the dice) what decides, never a bare dash when
// the tree has moves.
function bestMoveText(trace) {
  if (trace.bestMove !== null && trace.bestMove !== undefined) return { text: trace.bestMove, title: "" };
  if (trace.root.player === "chance" && trace.root.children.length > 0) return { text: t("summary.best.roll"), title: t("summary.best.roll.title") };
  if (trace.root.children.length === 0) return { text: t("summary.best.none"), title: t("summary.best.none.title") };
  const principal = trace.root.children.find((child) => trace.principal.has(child));
  return { text: principal ? principal.move : "–", title: "" };
}

// In classroom mode the example's note (it tells the answer) and the side
// by side wait for the last step.
function renderWithheld() {
  const trace = app.trace;
  const withheld = classroomWithholds();
  const entry = app.example;
  let note = app.note ? t(app.note) : "";
  if (entry && entry.custom) note = entry.title || t("ex.custom.intro");
  else if (entry) note = withheld ? t(`ex.${entry.key}.intro`) : t(`ex.${entry.key}.note`);
  $("example-note").textContent = note;
  $("example-source").textContent = entry && !entry.custom ? t(`ex.${entry.key}.source`) : "";
  // The principal line is the search's answer: folding to it waits too.
  $("collapse").disabled = withheld;
  $("collapse").title = t(withheld ? "learn.collapse.withheld" : "learn.collapse.title");
  if (withheld && (app.compared || $("compare-grid").childElementCount > 0)) {
    // Turned on over a side by side already made: its trees leave the page
    // (hidden markup would keep their values), to be made again at the end.
    $("compare-table").tBodies[0].replaceChildren();
    $("compare-grid").replaceChildren();
    app.compared = null;
    app.compareDue = true;
  }
  $("compare-withheld").hidden = !withheld;
  $("compare-grid").hidden = withheld;
  $("compare-table").hidden = withheld;
  if (!withheld && app.compareDue && !app.busy) compare();
}

// Whether classroom mode still hides the answer (before the last step).
function classroomWithholds() {
  return Boolean(app.classroom && app.trace && app.index < app.trace.lastIndex);
}

function setClassroom(on, restart = true) {
  app.classroom = on;
  $("classroom").checked = on;
  document.body.classList.toggle("classroom", on);
  const url = new URL(window.location.href);
  if (on) url.searchParams.set("classroom", "1");
  else url.searchParams.delete("classroom");
  window.history.replaceState(null, "", url);
  if (!app.trace) return;
  stopPlaying();
  if (on && restart) app.index = 0;
  relayout();
  render(true);
}

// ---------------------------------------------------------------------------
// Predict, then reveal.

function setQuestions(trace, spec) {
  const typedTree = spec.game === TREE;
  const asked = parseQuestions(spec.ask);
  // Questions about a node the tree does not have are said to be left out
  // (a review, 2026-12-07: ask=value:9 on a tree of 7 nodes was dropped
  // without a word).
  app.leftOut = asked.filter((question) => ["value", "prune"].includes(question.kind) && nodeAt(trace, question.path) === null);
  app.questions = asked
    .filter((question) => applies(trace, question, typedTree))
    .map((question) => ({ question, index: askedAt(trace, question), done: false, result: null }))
    .filter((entry) => entry.index !== null)
    .sort((a, b) => a.index - b.index);
  app.picked = new Set();
  app.reveal = null;
  app.blocked = null;
}

// The question asked at the step shown, if any (classroom mode only).
function currentQuestion() {
  if (!app.classroom || !app.trace || app.reveal) return null;
  return app.questions.find((q) => !q.done && q.index === app.index) || null;
}

// The question answered last at the step shown (its result stays there).
function answeredHere() {
  if (!app.classroom || !app.trace || !app.reveal) return null;
  return app.reveal.index === app.index ? app.reveal : null;
}

function button(text, onClick, className = "") {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
}

function answer(entry, given) {
  // The nodes whose values later questions ask for stay hidden in the feedback.
  const later = app.questions.filter((q) => q !== entry && !q.done && q.question.kind === "value").map((q) => q.question.path);
  const rootLater = app.questions.some((q) => q !== entry && !q.done && ["move", "winner"].includes(q.question.kind));
  const pruneLater = app.questions.some((q) => q !== entry && !q.done && q.question.kind === "prune");
  const result = check(app.trace, entry.question, given, later, rootLater, pruneLater);
  if (result.invalid) {
    $("predict-result").textContent = result.text;
    $("predict-result").className = "wrong";
    return;
  }
  entry.done = true;
  entry.result = result;
  // Its feedback is said again in the page's language after a switch (it
  // stayed in the language it was checked in: a review, 2026-12-07).
  entry.recheck = () => check(app.trace, entry.question, given, later, rootLater, pruneLater);
  app.reveal = entry;
  render(false);
}

function renderPredict() {
  const box = $("predict");
  const asking = currentQuestion();
  const answered = asking ? null : answeredHere();
  const entry = asking || answered;
  $("predict-off").hidden = app.classroom || app.questions.length === 0;
  box.hidden = !entry;
  // A prune question's Check and Skip come after the tree, so that Tab
  // reaches the leaves to choose first (a review of 2026-12-07: Check and
  // Skip came first, the leaves after them).
  const pick = $("predict-pick");
  pick.replaceChildren();
  pick.hidden = true;
  if (!entry) return;
  const { question } = entry;
  $("predict-question").textContent = prompt(question);
  const input = $("predict-input");
  const result = $("predict-result");
  if (answered) {
    input.replaceChildren();
    if (answered.result) {
      const said = answered.recheck ? answered.recheck() : answered.result;
      result.textContent = said.text;
      result.className = said.correct ? "right" : "wrong";
    } else {
      result.textContent = t("predict.skipped");
      result.className = "";
    }
    return;
  }
  if (app.blocked === entry) {
    result.textContent = t("predict.blocked");
    result.className = "blocked";
  } else {
    result.textContent = "";
    result.className = "";
  }
  const skip = button(t("predict.skip"), () => {
    entry.done = true;
    render(false);
  }, "small");
  skip.id = "predict-skip";
  const trace = app.trace;
  if (question.kind === "value") {
    const field = document.createElement("input");
    field.id = "predict-value";
    field.inputMode = "decimal";
    field.autocomplete = "off";
    field.setAttribute("aria-label", t("predict.answer"));
    const go = button(t("predict.check"), () => answer(entry, field.value));
    go.id = "predict-check";
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        answer(entry, field.value);
      }
    });
    input.replaceChildren(field, go, skip);
  } else if (question.kind === "move") {
    const moves = trace.root.children.map((child) => {
      const choice = button(child.move, () => answer(entry, child.move), "predict-choice");
      choice.dataset.answer = child.move;
      return choice;
    });
    input.replaceChildren(...moves, skip);
  } else if (question.kind === "winner") {
    const choices = [[1, "predict.winner.max"], [0, "predict.winner.draw"], [-1, "predict.winner.min"]].map(([value, key]) => {
      const choice = button(t(key), () => answer(entry, value), "predict-choice");
      choice.dataset.answer = String(value);
      return choice;
    });
    input.replaceChildren(...choices, skip);
  } else {
    const picked = [...app.picked];
    const selection = document.createElement("span");
    selection.className = "selection";
    selection.textContent = t("predict.selected", { count: picked.length, leaves: picked.join(", ") });
    const go = button(t("predict.check"), () => answer(entry, new Set(app.picked)));
    go.id = "predict-check";
    input.replaceChildren();
    pick.replaceChildren(selection, go, skip);
    pick.hidden = false;
  }
}

// An address that opens this exercise (tree, search, questions) in
// classroom mode, shown to copy (and copied where the browser lets it).
async function shareLink() {
  let spec;
  try {
    spec = readSpec();
  } catch (error) {
    say(error.message, "error");
    return;
  }
  const url = new URL(window.location.href);
  url.search = "";
  const params = url.searchParams;
  const entry = app.example;
  const sameAsExample = entry && !entry.custom && spec.game === (entry.game || TREE) && spec.position === entry.position &&
    spec.algorithm === entry.algorithm && String(spec.depth ?? "") === String(entry.depth) && spec.ask === (entry.ask || "");
  if (sameAsExample) params.set("example", entry.key);
  else {
    params.set("game", spec.game);
    if (spec.position) params.set("position", spec.position);
    if (spec.moves.length > 0) params.set("moves", spec.moves.join(" "));
    if (Object.keys(spec.options).length > 0) params.set("options", JSON.stringify(spec.options));
    params.set("algorithm", spec.algorithm);
    if (spec.depth !== null) params.set("depth", String(spec.depth));
    if (spec.ask) params.set("ask", formatQuestions(parseQuestions(spec.ask)));
  }
  params.set("classroom", "1");
  params.set("lang", document.documentElement.lang);
  const field = $("share-url");
  field.hidden = false;
  field.value = url.toString();
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    say(t("share.copied"), "hint");
  } catch {
    // no clipboard here (an address that is not secure): the field is selected to copy
  }
}

// ---------------------------------------------------------------------------
// Zoom and pan: the drawing keeps its coordinates (and its export its
// natural size); only its size on the page changes.

function fitScale() {
  const box = $("learn-tree");
  const width = Math.max(100, box.clientWidth - 8);
  const height = Math.max(200, window.innerHeight * 0.7 - 8);
  const scale = Math.min(width / app.layout.width, height / app.layout.height);
  return Math.max(FIT_MIN, Math.min(FIT_MAX, scale));
}

function currentScale() {
  return app.zoom === "fit" ? fitScale() : app.zoom;
}

function applyZoom() {
  const svg = $("learn-tree").querySelector("svg");
  if (!svg || !app.layout) return;
  const scale = currentScale();
  svg.setAttribute("width", (app.layout.width * scale).toFixed(1));
  svg.setAttribute("height", (app.layout.height * scale).toFixed(1));
  svg.dataset.scale = scale.toFixed(3);
  // A fit held at its smallest readable scale does not show the whole tree
  // (a phone): the label says so and how to see the rest.
  const overflows = app.layout.width * scale > $("learn-tree").clientWidth + 1;
  const portrait = window.innerHeight > window.innerWidth && window.innerWidth < 700;
  const fitted = overflows ? t(portrait ? "view.fit.pan.turn" : "view.fit.pan") : t("view.fitted");
  $("zoom-level").textContent = `${Math.round(scale * 100)}%${app.zoom === "fit" ? ` (${fitted})` : ""}`;
}

function zoomBy(factor) {
  if (!app.layout) return;
  app.zoom = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, currentScale() * factor));
  applyZoom();
}

function zoomTo(mode) {
  app.zoom = mode;
  applyZoom();
}

// Drag the drawing to pan it (where the drag does not start on a node
// that is a button); Ctrl and the wheel zoom.
function wirePan() {
  const box = $("learn-tree");
  let drag = null;
  box.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.target.closest?.("[role=button]")) return;
    drag = { x: event.clientX, y: event.clientY, left: box.scrollLeft, top: box.scrollTop, moved: false, id: event.pointerId };
  });
  box.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) {
      drag.moved = true;
      box.setPointerCapture(event.pointerId);
      box.classList.add("panning");
    }
    box.scrollLeft = drag.left - dx;
    box.scrollTop = drag.top - dy;
  });
  const end = () => {
    drag = null;
    box.classList.remove("panning");
  };
  box.addEventListener("pointerup", end);
  box.addEventListener("pointercancel", end);
  box.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    zoomBy(event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP);
  }, { passive: false });
  window.addEventListener("resize", () => {
    if (app.zoom === "fit") applyZoom();
  });
}

// A server error as the page says it: a tree too big to draw gets advice.
function errorText(error, spec) {
  if (error.code === "unknown_algorithm" && hasChanceNodes(parsedTree(spec))) {
    // The server's words say why; the page says what to do, in its language.
    return t("learn.chance.algorithm", { algorithm: algorithmName(spec.algorithm) });
  }
  if (error.code !== "limit_exceeded") {
    return error instanceof EngineError ? engineErrorText(error.code, error.serverMessage) : error.message;
  }
  // The advice says in the page's language what the limit means; the server's words name the limit.
  const message = t("error.server", { message: error.serverMessage || error.message });
  if (spec.algorithm === MCTS) return t("limit.mcts", { message });
  return t(spec.algorithm === "alphabeta_ordered" ? "limit.trace.ordered" : "limit.trace", { message });
}

function toggleNode(node) {
  if (app.expanded.has(node)) app.expanded.delete(node);
  else app.expanded.add(node);
  relayout();
  render(false);
}

// A node's path as the page shows it: "2·1", the root in the page's language.
function shownPath(node) {
  return node.parent ? node.path : t("path.root");
}

function symbol(node) {
  if (node.kind === "terminal") return "▭";
  return { max: "▲", min: "▼", chance: "○" }[node.player] || "";
}

function describeEvent(trace, event) {
  if (!event) return "";
  if (trace.mcts) return describePlayout(trace, event);
  const node = event.node;
  // "MAX node 2", "chance node 1" (a chance node's name already says "node").
  const who = node.kind === "terminal" ? t("node.leaf") : node.player === "chance" ? t("node.chance") : t("node.of", { who: playerName(node.player) });
  const where = node === trace.root ? t("node.root") : `${who} ${node.path}`;
  if (event.kind === "enter") {
    if (node.alphaIn !== null && trace.hasWindows) {
      return t("event.enter.window", { where, alpha: formatValue(node.alphaIn), beta: formatValue(node.betaIn) });
    }
    return t("event.enter", { where });
  }
  let text = t("event.return", { where: `${where.charAt(0).toUpperCase()}${where.slice(1)}`, value: formatValue(node.value) });
  if (node.kind === "cutoff") text += ` ${t("event.return.eval")}`;
  if (node.moverValue !== null && trace.algorithm === "negamax") text += ` ${t("event.return.negamax", { value: formatValue(node.moverValue) })}`;
  if (node.prunedAfter.length > 0) {
    // The test of the pseudocode: v against the window it was given (a node
    // cut off returns before narrowing its own bound).
    const values = { value: formatValue(node.value), alpha: formatValue(node.alphaOut), beta: formatValue(node.betaOut), moves: node.prunedAfter.join(", "), count: node.prunedAfter.length };
    text += `; ${t(node.player === "min" ? "event.cut.min" : "event.cut.max", values)}`;
  } else if (cutTestFired(node, trace.hasWindows)) {
    // The test fired at the last move: it returns, its window unchanged, with nothing to prune.
    const values = { value: formatValue(node.value), alpha: formatValue(node.alphaOut), beta: formatValue(node.betaOut) };
    text += `; ${t(node.player === "min" ? "event.cut.last.min" : "event.cut.last.max", values)}`;
  }
  if (node === trace.root) text += `; ${t("event.best", { move: bestMoveText(trace).text })}`;
  return `${text}.`;
}

// Playout k's four phases, from the trace's playout log: selection (the
// highlighted path), expansion (the node it added, ringed), simulation
// (its result) and back-propagation (the path's statistics, counted again).
function describePlayout(trace, event) {
  const node = event.node;
  if (event.step === 0) return t("mcts.step.root");
  const result = resultText(event.result);
  let text;
  if (event.result === undefined || event.result === null) {
    text = t("mcts.step.nolog", { playout: event.step, node: `${symbol(node)} ${shownPath(node)}` });
  } else {
    const line = trace.lineage(node).map((at) => (at === trace.root ? t("node.root") : at.move)).join(" → ");
    const phases = [
      t("mcts.step.select", { playout: event.step, line }),
      event.added ? t("mcts.step.expand", { node: `${symbol(node)} ${shownPath(node)}` }) : t("mcts.step.noexpand"),
      t(node.kind === "terminal" ? "mcts.step.terminal" : "mcts.step.simulate", { result }),
      t("mcts.step.backprop", { count: trace.lineage(node).length, value: formatValue(event.result) }),
    ];
    text = phases.join(" ");
  }
  if (event.index === trace.lastIndex) {
    const asked = app.spec?.playouts ?? 100;
    if (trace.playouts < asked) text += ` ${t("mcts.step.solver", { playouts: trace.playouts, asked })}`;
    text += ` ${t("mcts.step.move", { move: trace.bestMove ?? "–" })}`;
  }
  return text;
}

// A playout's result for MAX in words.
function resultText(result) {
  if (result === null || result === undefined) return "";
  const key = result >= 1 ? "mcts.result.win" : result <= 0 ? "mcts.result.loss" : result === 0.5 ? "mcts.result.draw" : "mcts.result.value";
  return t(key, { value: formatValue(result) });
}

function renderTable(follow) {
  const trace = app.trace;
  const body = $("learn-steps").tBodies[0];
  const total = trace.events.length;
  if (app.index < app.tableStart + 20 && app.tableStart > 0 || app.index >= app.tableEnd - 20 && app.tableEnd < total || app.tableEnd === 0) {
    app.tableStart = Math.max(0, Math.min(app.index - TABLE_WINDOW / 2, total - TABLE_WINDOW));
    app.tableEnd = Math.min(total, app.tableStart + TABLE_WINDOW);
    body.replaceChildren(...trace.events.slice(app.tableStart, app.tableEnd).map((event) => tableRow(trace, event)));
  }
  for (const row of body.rows) {
    const index = Number(row.dataset.index);
    row.classList.toggle("current", index === app.index);
    row.classList.toggle("future", index > app.index);
    // One stop for Tab, the current row; the arrow keys move from it (a
    // review of 2026-12-07: no row could be reached from the keyboard).
    row.tabIndex = index === app.index ? 0 : -1;
    row.hidden = app.classroom && index > app.index;
    if (index === app.index) row.setAttribute("aria-current", "step");
    else row.removeAttribute("aria-current");
  }
  if (follow) followRow(body.querySelector("tr.current"));
}

// Bring the current row into the Steps panel's own view, scrolling that
// panel only: scrollIntoView scrolled the whole page too, taking the tree and
// the step's text off the screen at each step (a review, 2026-12-07).
function followRow(row) {
  const panel = row?.closest(".steps-scroll");
  if (!row || !panel) return;
  const shown = panel.getBoundingClientRect();
  const at = row.getBoundingClientRect();
  const header = panel.querySelector("thead")?.getBoundingClientRect().height ?? 0; // sticky
  if (at.top < shown.top + header) panel.scrollTop -= shown.top + header - at.top;
  else if (at.bottom > shown.bottom) panel.scrollTop += at.bottom - shown.bottom;
}

// A row of the playouts: the path's last node (added by the playout, or
// reached again), the playout's result, the root's wins/visits after it.
function mctsCells(trace, event) {
  const node = event.node;
  if (event.step === 0) return ["0", `${symbol(node)} ${shownPath(node)}`, "", "0/0"];
  if (event.result === undefined || event.result === null) return [String(event.step), `${symbol(node)} ${shownPath(node)}`, "", formatWinsVisits(node)];
  const where = `${symbol(node)} ${shownPath(node)}${event.added ? "" : ` (${t("mcts.revisit")})`}`;
  return [String(event.step), where, resultText(event.result), formatWinsVisits(trace.root, trace.statsAt(event.index).get(trace.root))];
}

function tableRow(trace, event) {
  const node = event.node;
  const row = document.createElement("tr");
  row.dataset.index = String(event.index);
  row.className = event.kind;
  const enter = event.kind === "enter";
  let value = "";
  if (!enter) {
    value = formatValue(node.value);
    if (node.kind === "cutoff") value += ` (${t("tree.eval")})`;
    if (node.moverValue !== null && trace.algorithm === "negamax") value += ` (${t("row.mover", { value: formatValue(node.moverValue) })})`;
    // "2,3" read as the number 2.3 where the comma is the decimal mark.
    if (node.prunedAfter.length > 0) value += ` ✂ ${node.prunedAfter.join(t("steps.pruned.separator"))}`;
  }
  const cells = trace.mcts ? mctsCells(trace, event) : [
    String(event.index + 1),
    t(enter ? "row.enter" : "row.return"),
    `${symbol(node)} ${shownPath(node)}`,
    trace.hasWindows ? formatValue(enter ? node.alphaIn : node.alphaOut) : "",
    trace.hasWindows ? formatValue(enter ? node.betaIn : node.betaOut) : "",
    value,
  ];
  cells.forEach((text, i) => {
    const cell = document.createElement("td");
    cell.textContent = text;
    if (i === 0) cell.className = "step";
    row.append(cell);
  });
  row.addEventListener("click", () => goTo(event.index));
  return row;
}

function goTo(index) {
  if (!app.trace) return;
  let clamped = Math.max(0, Math.min(app.trace.lastIndex, index));
  // Forward, the search waits at a question not yet answered.
  if (clamped > app.index && app.classroom) {
    // An answer just checked stays until the next key; then the next
    // question of the same step, if any.
    if (app.reveal) {
      app.reveal = null;
      if (currentQuestion()) {
        render(false);
        return;
      }
    }
    const waiting = app.questions.find((q) => !q.done && q.index >= app.index && q.index < clamped);
    if (waiting) {
      if (waiting.index === app.index) {
        stopPlaying();
        app.blocked = waiting;
        render(false);
        return;
      }
      clamped = waiting.index;
    }
  }
  app.reveal = null;
  if (clamped === app.index) return;
  app.index = clamped;
  if (app.trace.mcts) revealAdded(app.trace.events[clamped]);
  relayout();  // the step's node is never left in a "+N more" box
  render(true);
}

// The node a playout added is the point of its step: open its ancestors so
// that a collapsed branch does not hide it.
function revealAdded(event) {
  for (let node = event && event.node ? event.node.parent : null; node; node = node.parent) {
    app.expanded.add(node);
  }
}

function step(delta) {
  stopPlaying();
  if (app.trace) goTo(app.index + delta);
}

// The keys of the Steps table's current row: Up and Down one step, Home and
// End the first and the last, as the step buttons do; the focus stays on the
// row of the step shown.
function stepRowKey(event) {
  if (!app.trace || !event.target.closest?.("tr[data-index]")) return;
  const delta = { ArrowDown: 1, ArrowUp: -1, Home: -Infinity, End: Infinity }[event.key];
  if (delta === undefined) return;
  event.preventDefault();
  step(delta);
  // Into view as it moves (the page too): the focused row walked off the
  // window (a review of 2026-12-07).
  $("learn-steps").tBodies[0].querySelector("tr.current")?.focus();
}

function togglePlay() {
  if (app.playing !== null) {
    stopPlaying();
    return;
  }
  if (!app.trace) return;
  if (app.index >= app.trace.lastIndex) goTo(0);
  const tick = () => {
    if (!app.trace || app.index >= app.trace.lastIndex) {
      stopPlaying();
      return;
    }
    goTo(app.index + 1);
    if (currentQuestion()) {
      stopPlaying();
      return;
    }
    app.playing = setTimeout(tick, Number($("step-speed").value));
  };
  app.playing = setTimeout(tick, Number($("step-speed").value));
  $("step-play").textContent = t("steps.pause");
  $("step-play").setAttribute("aria-label", t("steps.pause"));
}

function stopPlaying() {
  if (app.playing !== null) clearTimeout(app.playing);
  app.playing = null;
  $("step-play").textContent = t("steps.play");
  $("step-play").setAttribute("aria-label", t("steps.play"));
}

// ---------------------------------------------------------------------------
// Side by side.

async function compare() {
  if (!app.conn || app.busy) return;
  // Withheld, the other searches' trees are not even fetched: hidden markup
  // holding their values is an answer for anyone who opens the inspector.
  app.compareDue = classroomWithholds();
  if (app.compareDue) {
    $("compare-table").tBodies[0].replaceChildren();
    $("compare-grid").replaceChildren();
    app.compared = null;
    return;
  }
  let spec;
  try {
    spec = readSpec();
  } catch (error) {
    say(error.message, "error");
    return;
  }
  app.busy = true;
  updateButtons();
  const body = $("compare-table").tBodies[0];
  body.replaceChildren();
  const grid = $("compare-grid");
  grid.replaceChildren();
  try {
    await startPosition(spec);
  } catch (error) {
    say(error.message, "error");
    app.busy = false;
    updateButtons();
    return;
  }
  let widest = 0;
  // The three, and the search drawn above when it is another (negamax,
  // expectiminimax); not MCTS, whose win rates do not compare with utilities.
  // A tree with chance nodes is expectiminimax's alone: minimax and
  // alpha-beta have no chance nodes (the server refuses them there).
  const chance = app.trace !== null && app.trace.nodes.some((node) => node.player === "chance");
  const searches = chance ? [EXPECTIMINIMAX] : COMPARED.includes(spec.algorithm) || spec.algorithm === MCTS ? COMPARED : [...COMPARED, spec.algorithm];
  if (chance) {
    const row = document.createElement("tr");
    row.append(cell(t("compare.chance"), "note", 6));
    body.append(row);
  }
  for (const algorithm of searches) {
    const label = algorithmName(algorithm);
    const row = document.createElement("tr");
    row.dataset.algorithm = algorithm;
    const figure = document.createElement("figure");
    figure.className = "compare-tree";
    figure.dataset.algorithm = algorithm;
    const caption = document.createElement("figcaption");
    caption.textContent = label;
    const drawing = document.createElement("div");
    figure.append(caption, drawing);
    grid.append(figure);
    body.append(row);
    let trace;
    try {
      trace = new Trace(await requestTrace(spec, algorithm), parsedTree(spec));
    } catch (error) {
      row.append(cell(label, "algorithm"), cell(error.message, "error", 5));
      drawing.textContent = error.message;
      continue;
    }
    const ebf = trace.effectiveBranching;
    row.append(
      cell(label, "algorithm"),
      cell(formatValue(trace.value), "value"),
      cell(bestMoveText(trace).text, "best"),
      cell(String(trace.visited), "visited"),
      cell(String(trace.leaves), "leaves"),
      cell(ebf === null ? "–" : decimal(ebf, 2), "ebf"),
    );
    const { expanded } = initialExpansion(trace);
    // Columns as wide as the longest leaf value needs (backgammon's "1000"
    // boxes touched at the compact width, a review of 2026-12-07).
    const lay = layout(trace, expanded, new Set(), { ...COMPACT, slot: compactSlot(trace) });
    widest = Math.max(widest, lay.width);
    // Narrow drawings side by side, wide ones one under the other.
    grid.style.gridTemplateColumns = `repeat(auto-fit, minmax(min(100%, ${Math.ceil(widest) + 12}px), 1fr))`;
    drawTree(drawing, trace, lay, trace.lastIndex, {
      compact: true,
      label: t("aria.compare", { name: label, visited: trace.visited, leaves: trace.leaves }),
    });
  }
  app.compared = spec;
  app.busy = false;
  updateButtons();
  if (app.again) {
    app.again = false;
    await drawSearch();
  }
}

// The side by side's column width: COMPACT's, or wider for long leaf values
// (about 8 units a character of the 13-unit bold value, and a gap).
function compactSlot(trace) {
  let longest = 0;
  for (const node of trace.nodes) {
    if (node.children.length === 0 && node.value !== null && node.value !== undefined) {
      longest = Math.max(longest, formatValue(node.value).length);
    }
  }
  return Math.max(COMPACT.slot, longest * 8 + 16);
}

function cell(text, className, span = 1) {
  const td = document.createElement("td");
  td.textContent = text;
  td.className = className;
  if (span > 1) td.colSpan = span;
  return td;
}

// ---------------------------------------------------------------------------
// Export.

function download(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

function exportName(suffix) {
  const trace = app.trace;
  return `search-${trace ? trace.algorithm : "tree"}-step-${app.index + 1}.${suffix}`;
}

function exportSvg() {
  const svg = $("learn-tree").querySelector("svg");
  if (svg) download(new Blob([svgDocument(svg)], { type: "image/svg+xml" }), exportName("svg"));
}

async function exportPng() {
  const svg = $("learn-tree").querySelector("svg");
  if (!svg) return;
  try {
    download(await pngBlob(svg), exportName("png"));
  } catch (error) {
    say(t("error.nopng", { message: error.message }), "error");
  }
}

// ---------------------------------------------------------------------------
// Small things and wiring.

function updateButtons() {
  const trace = app.trace;
  const ready = Boolean(app.conn) && !app.busy;
  $("learn-draw").disabled = !ready;
  $("compare-run").disabled = !ready;
  $("step-first").disabled = !trace || app.index === 0;
  $("step-back").disabled = !trace || app.index === 0;
  $("step-forward").disabled = !trace || app.index >= trace.lastIndex;
  $("step-last").disabled = !trace || app.index >= trace.lastIndex;
  $("step-play").disabled = !trace;
  for (const id of ["export-svg", "export-png", "expand-all", "collapse"]) $(id).disabled = !trace;
  // In classroom mode the principal line waits for the last step (renderWithheld).
  if (trace && app.classroom && app.index < trace.lastIndex) $("collapse").disabled = true;
  // So does the side by side: its button, enabled, did nothing there (a
  // review, 2026-12-07); its title says when it comes.
  const withheld = classroomWithholds();
  if (withheld) $("compare-run").disabled = true;
  $("compare-run").title = withheld ? t("compare.withheld") : "";
}

// The message box: a text, or a function that writes it in the page's
// language (written again when the language changes).
function say(text, kind = "hint") {
  const box = $("learn-message");
  app.sayAgain = typeof text === "function" ? text : null;
  box.textContent = app.sayAgain ? app.sayAgain() : text;
  box.className = kind;
}

function setStatus(text, kind) {
  const status = $("connection");
  // Written by the page from now on: a change of language refilled the
  // static "connecting…" over a connected status (data-i18n).
  delete status.dataset.i18n;
  status.textContent = text;
  status.className = `status ${kind}`;
}

function exampleLabel(button, entry) {
  button.textContent = t(`ex.${entry.key}.title`);
  if (entry.ask) {
    const mark = document.createElement("span");
    mark.className = "exercise-mark";
    mark.textContent = t("ex.exercise.mark");
    mark.title = t("ex.exercise.title");
    button.append(mark);
  }
}

function wire() {
  watchFocus();
  for (const entry of EXAMPLES) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.example = entry.key;
    exampleLabel(button, entry);
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => {
      applyExample(entry);
      app.algorithmNamed = true;
      // An exercise asks its questions in classroom mode.
      if (entry.ask && !app.classroom) setClassroom(true, false);
      drawSearch();
    });
    $("examples").append(button);
  }
  fillAlgorithms();
  $("learn-algorithm").addEventListener("change", () => {
    app.algorithmNamed = true;
    algorithmChosen();
  });
  $("learn-game").addEventListener("change", () => {
    gameChosen();
    $("learn-position").value = "";
    app.example = null;
    app.note = "";
    $("example-note").textContent = "";
  });
  $("learn-form").addEventListener("submit", (event) => {
    event.preventDefault();
    drawSearch();
  });
  $("step-first").addEventListener("click", () => step(-Infinity));
  $("step-back").addEventListener("click", () => step(-1));
  $("step-forward").addEventListener("click", () => step(1));
  $("step-last").addEventListener("click", () => step(Infinity));
  $("step-play").addEventListener("click", togglePlay);
  $("learn-steps").tBodies[0].addEventListener("keydown", stepRowKey);
  $("compare-run").addEventListener("click", compare);
  $("export-svg").addEventListener("click", exportSvg);
  $("export-png").addEventListener("click", exportPng);
  $("expand-all").addEventListener("click", () => {
    if (!app.trace) return;
    if (app.trace.nodes.length > DRAW_LIMIT) {
      say(t("limit.draw", { nodes: app.trace.nodes.length, limit: DRAW_LIMIT }), "error");
      return;
    }
    app.expanded = new Set(app.trace.nodes);
    app.showAll = new Set(app.trace.nodes);
    relayout();
    render(false);
  });
  $("collapse").addEventListener("click", () => {
    if (!app.trace || (app.classroom && app.index < app.trace.lastIndex)) return;
    app.expanded = new Set(app.trace.principal);
    app.showAll = new Set();
    relayout();
    render(false);
  });
  $("classroom").addEventListener("change", () => setClassroom($("classroom").checked));
  wireLanguageMenu($("lang"));
  onLanguageChange(() => {
    if (app.conn && app.serverText) setStatus(serverName(app.serverText), "good");
    fillAlgorithms();
    if (app.games.length > 0) fillGames();
    stopPlaying();
    if (app.trace) renderTitle();
    // The side by side, drawn again in the new language.
    if (app.compared && !app.busy) compare();
    for (const button of $("examples").querySelectorAll("button")) exampleLabel(button, example(button.dataset.example));
    // The Steps rows are made in a language once: made again (the rows
    // kept their words after a switch, a review of 2026-12-07).
    app.tableEnd = 0;
    if (app.trace) render(false);
    if (app.sayAgain) say(app.sayAgain, $("learn-message").className);
  });
  $("share-link").addEventListener("click", shareLink);
  $("zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("zoom-fit").addEventListener("click", () => zoomTo("fit"));
  $("zoom-reset").addEventListener("click", () => zoomTo(1));
  wirePan();
  document.addEventListener("keydown", onKey);
}

function onKey(event) {
  if (keyBelongsElsewhere(event)) return;
  runShortcut(event, {
    ArrowRight: () => step(1),
    ArrowLeft: () => step(-1),
    Home: () => step(-Infinity),
    End: () => step(Infinity),
    p: () => togglePlay(),
    "+": () => zoomBy(ZOOM_STEP),
    "=": () => zoomBy(ZOOM_STEP),
    "-": () => zoomBy(1 / ZOOM_STEP),
    0: () => zoomTo("fit"),
    1: () => zoomTo(1),
  });
}

// For a check by hand in the console: the effective branching factor.
export { branchingFactor };

applyStatic();
wire();
stopPlaying();
updateButtons();
connect(true);
