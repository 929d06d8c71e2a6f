// The WebSocket connection to the engine server, speaking protocol.md in JSON text frames.
//
// request() sends a message with a fresh id and resolves with the reply that
// echoes it (`welcome`, `state`), or rejects with the `error` reply as an
// EngineError. think() sends a `think` and calls onInfo for each `info`; it
// resolves with the `bestmove`. The server answers replies in request order
// and every accepted think with exactly one bestmove, so ids are enough to
// route everything.

import { has, t } from "./i18n.js";

// An `error` reply as the pages show it: the explanation of its code in the
// page's language (strings.js, "error.code.<code>"), then the server's own
// words, which name the detail (the move, the option, the limit) but are
// English. A code this page does not know (a newer server's) keeps the
// server's text alone.
export function errorText(code, serverText) {
  const key = `error.code.${code}`;
  if (!has(key)) return serverText || String(code);
  return serverText ? `${t(key)} ${t("error.server", { message: serverText })}` : t(key);
}

export class EngineError extends Error {
  constructor(reply) {
    super(errorText(reply.code, reply.message));
    this.serverMessage = reply.message || "";
    this.code = reply.code;
    this.legalMoves = reply.legal_moves || null;
    this.retryAfterMs = reply.retry_after_ms ?? null;
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onInfo}
    this.onClose = () => {};
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.addEventListener("open", () => resolve(this), { once: true });
      ws.addEventListener("error", () => reject(new Error(t("conn.cannot", { url: this.url }))), { once: true });
      ws.addEventListener("message", (event) => this.receive(event.data));
      ws.addEventListener("close", (event) => {
        const failure = new Error(closeReason(event));
        for (const waiter of this.pending.values()) waiter.reject(failure);
        this.pending.clear();
        this.onClose(event);
      });
    });
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onInfo: null });
      this.send({ ...message, id });
    });
  }

  // Starts a think; returns {id, done} where done resolves with the bestmove.
  // `algorithm` (optional) names the search; without it the game's default.
  // `multipv` above 1 asks for that many root lines (each info says its rank).
  think(limits, onInfo, algorithm = null, multipv = 1) {
    const id = this.nextId++;
    const done = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onInfo });
      const message = { type: "think", id, limits };
      if (algorithm) message.algorithm = algorithm;
      if (multipv > 1) message.multipv = multipv;
      this.send(message);
    });
    return { id, done };
  }

  stop(id) {
    if (this.isOpen) this.send({ type: "stop", id });
  }

  send(message) {
    if (!this.isOpen) throw new Error(t("conn.not"));
    this.ws.send(JSON.stringify(message));
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // the server only sends JSON to a JSON client; ignore anything else
    }
    const waiter = this.pending.get(message.id);
    if (waiter === undefined) return;
    if (message.type === "info") {
      if (waiter.onInfo) waiter.onInfo(message);
      return;
    }
    this.pending.delete(message.id);
    if (message.type === "error") waiter.reject(new EngineError(message));
    else waiter.resolve(message);
  }

  close() {
    if (this.ws) this.ws.close(1000);
  }
}

function closeReason(event) {
  if (event.code === 1008) return t("conn.token");
  if (event.code === 1001) return t("conn.shutdown");
  return t("conn.closed", { code: event.code });
}

// ws://host/ws for a page served over http, wss:// over https.
export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
