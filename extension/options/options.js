/**
 * The options page: server address and pairing token, collection lists, reader defaults, and
 * a diagnostics view of the last protocol messages.
 */
import { api, readerShortcut } from "../shared/api.js";
import { askBackground, followStatus } from "../shared/messages.js";
import { DEFAULT_SETTINGS, clampReaderSize, loadSettings, saveSettings } from "../shared/settings.js";
import { ALL_SITES_PATTERNS, parseSiteList } from "../shared/sites.js";
import { statusSummary } from "../shared/status.js";

const $ = (id) => document.getElementById(id);
const READER_FIELDS = ["theme", "font", "size", "width", "leading", "align"];

function fill(settings) {
  $("server").value = settings.server;
  $("token").value = settings.token;
  $("collectAll").checked = settings.collectAll;
  $("collectPaused").checked = settings.collectPaused;
  $("allowSites").value = settings.allowSites.join("\n");
  $("denySites").value = settings.denySites.join("\n");
  for (const field of READER_FIELDS) $(field).value = settings.reader[field];
}

/** Read the form; an invalid server address throws with a message for the user. */
function read() {
  const server = $("server").value.trim();
  if (server && !/^wss?:\/\//.test(server)) throw new Error("The server address starts with ws:// (or wss://).");
  return {
    server,
    token: $("token").value.trim(),
    collectAll: $("collectAll").checked,
    collectPaused: $("collectPaused").checked,
    allowSites: parseSiteList($("allowSites").value),
    denySites: parseSiteList($("denySites").value),
    reader: {
      theme: $("theme").value,
      font: $("font").value,
      size: clampReaderSize(Number($("size").value) || DEFAULT_SETTINGS.reader.size),
      width: $("width").value,
      leading: $("leading").value,
      align: $("align").value,
    },
  };
}

/** Collecting everywhere needs broad host access, asked for inside the submit gesture. */
async function save(event) {
  event.preventDefault();
  let change;
  try {
    change = read();
  } catch (err) {
    $("saved").textContent = err.message;
    return;
  }
  if (change.collectAll && !(await api.permissions.request({ origins: [...ALL_SITES_PATTERNS] }))) {
    change.collectAll = false;
  }
  fill(await saveSettings(change));
  $("saved").textContent = "Saved.";
  setTimeout(() => { $("saved").textContent = ""; }, 2500);
}

function showStatus(status) {
  $("status").querySelector(".dot").className = `dot ${status.state}`;
  $("status-text").textContent = statusSummary(status);
}

async function showWire() {
  const { messages } = await askBackground("wire:log");
  $("wire").textContent = messages
    .map((entry) => `${new Date(entry.at).toISOString()} ${entry.direction === "out" ? "→" : "←"} ${JSON.stringify(entry.message)}`)
    .join("\n");
}

async function start() {
  fill(await loadSettings());
  $("form").addEventListener("submit", save);
  document.querySelector("details").addEventListener("toggle", showWire);
  $("shortcut").textContent = (await readerShortcut()) || "no shortcut yet";
  await followStatus(showStatus);
}

start();
