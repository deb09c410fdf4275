/**
 * Owns the one ServerConnection of this worker: builds it from config.json and the user's
 * settings; publishes its status in storage.session (readable without the worker; the browser
 * tests read it there), on the badge and to open extension pages (which otherwise ask with
 * status:get); and replaces the connection when the server address or token changes.
 */
import { api } from "../shared/api.js";
import { broadcast } from "../shared/messages.js";
import { loadConfig, loadSettings, serverUrl } from "../shared/settings.js";
import { ServerConnection } from "./connection.js";
import { showStatusOnBadge } from "./badge.js";

/** How many protocol messages the diagnostics log keeps. */
const WIRE_LOG_SIZE = 40;
/** Longest string kept in a logged message (page HTML is cut). */
const WIRE_LOG_STRING = 300;

let connecting = null;          // Promise<ServerConnection>
const wireLog = [];
const statusListeners = [];

/** The current connection, created on first use. */
export function connection() {
  connecting ??= createConnection();
  return connecting;
}

async function createConnection() {
  const [config, settings] = await Promise.all([loadConfig(), loadSettings()]);
  const manifest = api.runtime.getManifest();
  const conn = new ServerConnection({
    url: serverUrl(settings, config),
    reconnect: config.reconnect,
    keepaliveMs: config.keepaliveMs,
    requestTimeoutMs: config.requestTimeoutMs,
    client: { name: "winnow-extension", version: manifest.version, browser: browserName() },
    onStatus: publishStatus,
    onWire: logWire,
  });
  conn.connect();
  return conn;
}

/**
 * Send a request to the server, waiting for the connection when it is not open yet.
 * @param {string} type
 * @param {object} [fields]
 * @returns {Promise<object>} the reply's fields, without the envelope (v, id, type)
 */
export async function request(type, fields) {
  const { v, id, type: replyType, ...reply } = await (await connection()).request(type, fields);
  return reply;
}

/** The latest connection status (a worker that has no connection yet starts one). */
export async function currentStatus() {
  const conn = await connection();
  return conn.status;
}

/** Retry now: used by the popup's "Try again" and after the settings change. */
export async function reconnectNow() {
  const conn = await connection();
  conn.attempts = 0;
  conn.connect();
  return conn.status;
}

/** Drop the connection and build a new one (server address or token changed). */
export async function replaceConnection() {
  const old = connecting;
  connecting = null;
  (await old)?.close();
  return connection();
}

/** Register a function called with each status change (used to flush the collect outbox). */
export function onStatusChange(listener) {
  statusListeners.push(listener);
}

function publishStatus(status) {
  api.storage.session.set({ status }).catch(() => {});
  showStatusOnBadge(status);
  broadcast("status:changed", { status });
  for (const listener of statusListeners) listener(status);
}

/** Keep the last messages, long strings cut, for the options page's diagnostics. */
function logWire(message, direction) {
  const short = JSON.parse(JSON.stringify(message, (key, value) =>
    typeof value === "string" && value.length > WIRE_LOG_STRING
      ? `${value.slice(0, WIRE_LOG_STRING)}… (${value.length} characters)` : value));
  wireLog.push({ at: Date.now(), direction, message: short });
  if (wireLog.length > WIRE_LOG_SIZE) wireLog.shift();
}

/** The diagnostics log, oldest first. */
export function wireMessages() {
  return [...wireLog];
}

function browserName() {
  return api.runtime.getURL("").startsWith("moz-extension:") ? "firefox" : "chromium";
}
