/**
 * User settings, kept in storage.local (they outlive the MV3 worker and the browser session),
 * with their defaults in one place. `config.json` ships the defaults a build can change (the
 * server address and reconnect timings; the browser tests point them at their own server).
 */
import { api } from "./api.js";

/** Defaults for everything the options page, the popup and the reader view can change. */
export const DEFAULT_SETTINGS = Object.freeze({
  server: "",                // WebSocket URL; empty means config.json's
  token: "",                 // pairing token from the server's data dir, sent as ?token=
  collectAll: false,         // passive collection on every site (needs broad host access)
  collectPaused: false,      // pause collection without losing the site choices
  allowSites: [],            // sites to collect from (site keys: host without www.)
  denySites: [],             // sites never collected, even with collectAll
  reader: Object.freeze({
    theme: "auto",           // auto (follow the system), light, sepia, dark
    font: "serif",           // serif, sans, mono
    size: 20,                // px
    width: "medium",         // narrow, medium, wide
    leading: "normal",       // line height: tight, normal, loose
    align: "start",          // text alignment: start (ragged), justify
    voice: "",               // speech synthesis voice name; empty means the browser's default
    rate: 1,                 // speech rate, a multiple of the voice's normal speed
  }),
});

/**
 * The reader's font size bounds, px (the options page's field, the reader's A− and A+;
 * options.html repeats them as the field's min and max).
 */
const READER_SIZE = Object.freeze({ min: 14, max: 30 });

/** A reader font size brought within READER_SIZE. */
export function clampReaderSize(size) {
  return Math.min(READER_SIZE.max, Math.max(READER_SIZE.min, size));
}

/** Read the shipped config.json (server address, reconnect and keepalive timings). */
export async function loadConfig() {
  const response = await fetch(api.runtime.getURL("config.json"));
  return response.json();
}

/**
 * Read all settings, defaults filled in.
 * @returns {Promise<typeof DEFAULT_SETTINGS>}
 */
export async function loadSettings() {
  const stored = await api.storage.local.get("settings");
  const settings = stored.settings ?? {};
  return {
    ...DEFAULT_SETTINGS,
    ...settings,
    reader: { ...DEFAULT_SETTINGS.reader, ...(settings.reader ?? {}) },
  };
}

let writing = Promise.resolve();

/**
 * Merge a change into the stored settings. Writes are serialized so two quick changes (two
 * clicks in the popup) cannot overwrite each other's read-modify-write.
 * @param {Partial<typeof DEFAULT_SETTINGS>} change
 * @returns {Promise<typeof DEFAULT_SETTINGS>} the settings after the change
 */
export function saveSettings(change) {
  writing = writing.then(async () => {
    const current = await loadSettings();
    const next = { ...current, ...change };
    if (change.reader) next.reader = { ...current.reader, ...change.reader };
    await api.storage.local.set({ settings: next });
    return next;
  });
  return writing;
}

/**
 * The WebSocket URL to connect to, with the pairing token as a query parameter.
 * @param {typeof DEFAULT_SETTINGS} settings
 * @param {{server: string}} config
 */
export function serverUrl(settings, config) {
  const url = new URL(settings.server || config.server);
  if (settings.token) url.searchParams.set("token", settings.token);
  return url.toString();
}

/**
 * The server's HTTP address (dashboard, API) that goes with a WebSocket URL.
 * @param {string} wsUrl
 */
export function httpBase(wsUrl) {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  return `${url.protocol}//${url.host}/`;
}
