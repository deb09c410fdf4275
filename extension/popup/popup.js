/**
 * The toolbar popup: connection state (and how to start the server when it is not running),
 * the reader view, noise highlighting, export, passive collection for the current tab, and
 * forgetting the tab's site (its pages and model on the server).
 * `?tab=<id>` names the tab explicitly (the browser tests open the popup as a page).
 */
import { api, readerShortcut } from "../shared/api.js";
import { askBackground, followStatus } from "../shared/messages.js";
import { httpBase } from "../shared/settings.js";
import { ALL_SITES_PATTERNS, permissionPatterns } from "../shared/sites.js";
import { downloadText } from "../shared/download.js";
import { secondsToRetry, statusSummary } from "../shared/status.js";

const $ = (id) => document.getElementById(id);
const explicitTab = Number(new URLSearchParams(location.search).get("tab")) || null;

let info = null;          // the last tab:info reply
let latestStatus = null;  // the newest connection status
let retryTicker = null;

/** The tab the popup acts on. */
async function targetTabId() {
  if (explicitTab) return explicitTab;
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  return tab.id;
}

/** Show a short message under the actions (errors in red, confirmations in green). */
function say(text, ok = false) {
  $("message").textContent = text;
  $("message").classList.toggle("ok", ok);
  $("message").hidden = !text;
}

/** Connection line, offline notice with its retry countdown, and what needs the server. */
function renderStatus(status) {
  const online = status.state === "online";
  $("status").querySelector(".dot").className = `dot ${status.state}`;
  $("status-text").textContent = online
    ? `Connected${status.server?.version ? ` · ${status.server.version}` : ""}`
    : status.state === "offline" ? "Server not running" : "Connecting…";
  $("status").title = statusSummary(status);
  $("offline").hidden = status.state !== "offline";
  $("dashboard").href = httpBase(status.url);
  for (const el of document.querySelectorAll("#page-actions input, .export button, #forget")) el.disabled = !online || !info?.site;
  if (!online) $("forget-confirm").hidden = true;
  clearInterval(retryTicker);
  if (status.state === "offline") {
    const tick = () => {
      const seconds = secondsToRetry(status);
      $("retry-text").textContent = seconds ? `Retrying in ${seconds} s…` : "Retrying…";
    };
    tick();
    retryTicker = setInterval(tick, 1000);
  }
  if (online) loadStats();
}

/** Switches for the tab's site and the collection settings. */
function renderTab() {
  const { site, settings, tab } = info;
  $("not-web").hidden = Boolean(site);
  $("reader").disabled = !site;
  $("site").textContent = site ?? "this site";
  $("highlight").checked = info.highlighted;
  $("collect-site").checked = Boolean(site) && settings.allowSites.includes(site);
  $("collect-site").disabled = !site || tab.incognito;
  $("collect-all").checked = settings.collectAll;
  $("collect-paused").checked = settings.collectPaused;
  $("private").hidden = !tab.incognito;
}

async function loadStats() {
  if (!info?.site) return;
  try {
    const [site, all] = await Promise.all([
      askBackground("stats:get", { site: info.site }),
      askBackground("stats:get"),
    ]);
    const here = site.sites?.[0]?.pages ?? 0;
    $("stats").textContent = `${here} page${here === 1 ? "" : "s"} collected from ${info.site} · ${all.pages} in total`;
  } catch {
    $("stats").textContent = "";
  }
}

async function refresh() {
  info = await askBackground("tab:info", { tabId: await targetTabId() });
  renderTab();
  if (latestStatus) renderStatus(latestStatus);
}

/** Run an action, showing its error instead of failing silently. */
function guarded(action) {
  return async (event) => {
    say("");
    try {
      await action(event);
    } catch (err) {
      say(err.message);
      await refresh().catch(() => {});
    }
  };
}

async function openReader() {
  await askBackground("reader:open", { tabId: info.tab.id });
  if (!explicitTab) window.close();
}

async function toggleHighlight() {
  const reply = await askBackground("highlight:set", { tabId: info.tab.id, on: $("highlight").checked });
  $("highlight").checked = reply.highlighted;
  if (reply.highlighted) say(`${reply.content} content and ${reply.noise} noise elements outlined.`, true);
}

async function exportAs(event) {
  const format = event.currentTarget.dataset.format;
  const file = await askBackground("export:get", { tabId: info.tab.id, format });
  downloadText(file);
  say(`Saved ${file.filename}`, true);
}

/**
 * Collect this site or not. Host access is asked for first, inside the click, because the
 * browser only shows its permission prompt during a user gesture.
 */
async function toggleSite() {
  const on = $("collect-site").checked;
  if (on && !(await api.permissions.request({ origins: permissionPatterns(info.tab.url) }))) {
    $("collect-site").checked = false;
    throw new Error(`Winnow needs access to ${info.site} to collect its pages.`);
  }
  await askBackground("collect:set", { site: info.site, on });
  await refresh();
}

async function toggleAll() {
  const all = $("collect-all").checked;
  if (all && !(await api.permissions.request({ origins: [...ALL_SITES_PATTERNS] }))) {
    $("collect-all").checked = false;
    throw new Error("Winnow needs access to all sites to collect everywhere.");
  }
  await askBackground("collect:set", { all });
  await refresh();
}

async function togglePause() {
  await askBackground("collect:set", { paused: $("collect-paused").checked });
  await refresh();
}

/** Ask before forgetting: the confirmation names the site. */
function askToForget() {
  $("forget-site").textContent = info.site;
  $("forget-confirm").hidden = false;
  $("forget").hidden = true;
  $("forget-no").focus();
}

function cancelForget() {
  $("forget-confirm").hidden = true;
  $("forget").hidden = false;
}

/** Forget the tab's site: its stored pages and learned model on the server. */
async function forgetSite() {
  const site = info.site;
  cancelForget();
  const reply = await askBackground("site:forget", { site });
  const pages = reply.pages_deleted;
  say(`Forgot ${site}: ${pages} stored page${pages === 1 ? "" : "s"} and its learned templates deleted.`, true);
  await loadStats();
}

/** The reader shortcut as currently bound (users can rebind it), and a link to change it. */
async function showShortcut() {
  const shortcut = await readerShortcut();
  $("reader-shortcut").textContent = shortcut;
  $("reader-shortcut").hidden = !shortcut;
}

function openShortcutSettings(event) {
  event.preventDefault();
  if (api.commands.openShortcutSettings) api.commands.openShortcutSettings();
  else api.tabs.create({ url: "chrome://extensions/shortcuts" });
}

/**
 * Open the server's dashboard in a tab. A tab the extension opens is a browser-initiated
 * navigation, which the server accepts; a plain link from the popup would be a cross-site
 * request, which it refuses.
 */
function openDashboard(event) {
  event.preventDefault();
  api.tabs.create({ url: $("dashboard").href });
  if (!explicitTab) window.close();
}

function wire() {
  $("reader").addEventListener("click", guarded(openReader));
  $("highlight").addEventListener("change", guarded(toggleHighlight));
  for (const button of document.querySelectorAll(".export button")) button.addEventListener("click", guarded(exportAs));
  $("collect-site").addEventListener("change", guarded(toggleSite));
  $("collect-all").addEventListener("change", guarded(toggleAll));
  $("collect-paused").addEventListener("change", guarded(togglePause));
  $("retry").addEventListener("click", guarded(() => askBackground("reconnect")));
  $("forget").addEventListener("click", askToForget);
  $("forget-no").addEventListener("click", cancelForget);
  $("forget-yes").addEventListener("click", guarded(forgetSite));
  $("options").addEventListener("click", (event) => {
    event.preventDefault();
    api.runtime.openOptionsPage();
  });
  $("shortcuts").addEventListener("click", openShortcutSettings);
  $("dashboard").addEventListener("click", openDashboard);
}

wire();
followStatus((status) => {
  latestStatus = status;
  renderStatus(status);
}).catch((err) => say(err.message));
showShortcut().catch(() => {});
refresh().catch((err) => say(err.message));
