/**
 * The one WebSocket to `winnow serve` (protocol: docs/protocol.md, version 1).
 *
 * - Connects on start and reconnects with exponential backoff and jitter when the socket
 *   closes or cannot open.
 * - Sends `hello` first, then a keepalive `ping` at a fixed interval; a missing `pong` closes
 *   the socket so a half-open connection is noticed. (Chromium keeps an MV3 worker alive
 *   while its WebSocket has traffic, so the keepalive also keeps the worker.)
 * - Requests made while offline wait in a queue and go out when the socket opens.
 * - Replies are matched to requests by `id`, so many requests share the socket.
 *
 * The connection state is reported through `onStatus`; the caller persists it, because the
 * worker that owns this object can be stopped at any time.
 */

const PROTOCOL_VERSION = 1;

/** How long a ping may go unanswered before the socket is considered dead. */
const PONG_TIMEOUT_MS = 10000;

/** Fraction of random spread added to each backoff delay, so clients do not retry in step. */
const BACKOFF_JITTER = 0.2;

/**
 * @typedef {object} ConnectionStatus
 * @property {"connecting"|"online"|"offline"} state
 * @property {string} url the server address (without token)
 * @property {object|null} server the server's hello: {name, version}
 * @property {string|null} error why the last attempt failed, in words
 * @property {number} attempts failed attempts since the last success
 * @property {number|null} retryAt epoch ms of the next attempt when offline
 * @property {number} queued requests waiting for the socket
 */

export class ServerConnection {
  /**
   * @param {object} options
   * @param {string} options.url WebSocket URL, token included
   * @param {{initialMs: number, maxMs: number}} options.reconnect backoff bounds
   * @param {number} options.keepaliveMs ping interval
   * @param {number} options.requestTimeoutMs how long a request may wait for its reply
   * @param {(status: ConnectionStatus) => void} options.onStatus state changes
   * @param {(message: object, direction: "out"|"in") => void} [options.onWire] every message
   * @param {{name: string, version: string, browser: string}} options.client for `hello`
   */
  constructor(options) {
    this.options = options;
    this.socket = null;
    this.nextId = 1;
    this.pending = new Map();   // id → {resolve, reject, timer}
    this.queue = [];            // messages waiting for the socket to open
    this.attempts = 0;
    this.retryTimer = null;
    this.keepaliveTimer = null;
    this.pongTimer = null;
    this.closed = false;
    this.status = {
      state: "connecting", url: redact(options.url), server: null, error: null,
      attempts: 0, retryAt: null, queued: 0,
    };
  }

  /** Open the socket now (cancelling any scheduled retry). */
  connect() {
    clearTimeout(this.retryTimer);
    if (this.closed || this.socket) return;
    this.setStatus({ state: "connecting", retryAt: null });
    let socket;
    try {
      socket = new WebSocket(this.options.url);
    } catch (err) {
      this.scheduleRetry(`The server address is not valid: ${err.message}`);
      return;
    }
    this.socket = socket;
    socket.onopen = () => this.onOpen();
    socket.onmessage = (event) => this.onMessage(event.data);
    socket.onclose = (event) => this.onClose(event);
    socket.onerror = () => {};   // onclose follows and carries what we can know
  }

  /** Close for good (the settings changed; a new connection replaces this one). */
  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopKeepalive();
    this.socket?.close(1000, "settings changed");
    this.failAll("offline", "The connection to the server was replaced.");
  }

  /**
   * Send a request and wait for its reply. Queued while the socket is not open.
   * @param {string} type a client-to-server message type
   * @param {object} [fields]
   * @returns {Promise<object>} the reply; rejects with {code, message} for `error` replies
   */
  request(type, fields = {}) {
    const id = `c-${this.nextId++}`;
    const message = { v: PROTOCOL_VERSION, id, type, ...fields };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(Object.assign(new Error("The server did not answer in time."), { code: "timeout" }));
      }, this.options.requestTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.send(message);
    });
  }

  /** Send now when open, else queue until the socket opens. */
  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.sendNow(message);
    } else {
      this.queue.push(message);
      this.setStatus({ queued: this.queue.length });
      if (!this.socket && !this.retryTimer) this.connect();
    }
  }

  onOpen() {
    this.attempts = 0;
    const { name, version, browser } = this.options.client;
    this.sendNow({ v: PROTOCOL_VERSION, id: "hello", type: "hello", client: { name, version, browser } });
    this.startKeepalive();
  }

  /** Send a message past the queue (hello and pings must not wait behind queued pages). */
  sendNow(message) {
    this.options.onWire?.(message, "out");
    this.socket.send(JSON.stringify(message));
  }

  /** Flush the offline queue once the server has said hello. */
  flushQueue() {
    const queued = this.queue.splice(0);
    for (const message of queued) this.sendNow(message);
    this.setStatus({ queued: 0 });
  }

  onMessage(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;   // the server only sends JSON; a garbled frame is dropped, not fatal
    }
    this.options.onWire?.(message, "in");
    if (message.type === "hello" && message.id === "hello") {
      this.setStatus({ state: "online", server: message.server ?? null, error: null, attempts: 0 });
      this.flushQueue();
      return;
    }
    if (message.type === "pong") clearTimeout(this.pongTimer);
    this.settle(message);
  }

  /** Resolve or reject the request a reply answers. */
  settle(message) {
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.type === "error") {
      waiting.reject(Object.assign(new Error(message.message), { code: message.code }));
    } else {
      waiting.resolve(message);
    }
  }

  onClose(event) {
    this.socket = null;
    this.stopKeepalive();
    // Requests already sent will never be answered on a new socket; fail them so callers
    // can retry. Queued (unsent) messages stay queued.
    this.failAll("offline", "The connection to the Winnow server was lost.");
    if (this.closed) return;
    const reason = event.code === 1006 || !event.reason
      ? "The Winnow server is not running (or not reachable at this address)."
      : `The server closed the connection: ${event.reason}`;
    this.scheduleRetry(reason);
  }

  /** Reject every request that was sent and not yet answered. */
  failAll(code, text) {
    for (const [id, waiting] of this.pending) {
      if (this.queue.some((message) => message.id === id)) continue;
      clearTimeout(waiting.timer);
      waiting.reject(Object.assign(new Error(text), { code }));
      this.pending.delete(id);
    }
  }

  /** Wait min(max, initial·2^attempts) ± jitter, then connect again. */
  scheduleRetry(error) {
    const { initialMs, maxMs } = this.options.reconnect;
    const base = Math.min(maxMs, initialMs * 2 ** this.attempts);
    const delay = Math.round(base * (1 + BACKOFF_JITTER * (Math.random() * 2 - 1)));
    this.attempts += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
    this.setStatus({ state: "offline", error, attempts: this.attempts, retryAt: Date.now() + delay });
  }

  startKeepalive() {
    this.keepaliveTimer = setInterval(() => {
      if (this.socket?.readyState !== WebSocket.OPEN) return;
      this.sendNow({ v: PROTOCOL_VERSION, id: `ping-${Date.now()}`, type: "ping" });
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.socket?.close(4000, "no pong"), PONG_TIMEOUT_MS);
    }, this.options.keepaliveMs);
  }

  stopKeepalive() {
    clearInterval(this.keepaliveTimer);
    clearTimeout(this.pongTimer);
  }

  setStatus(change) {
    this.status = { ...this.status, ...change };
    this.options.onStatus(this.status);
  }
}

/** The server URL without its token, for display. */
function redact(url) {
  try {
    const parsed = new URL(url);
    parsed.searchParams.delete("token");
    return parsed.toString();
  } catch {
    return url;
  }
}
