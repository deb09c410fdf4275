/**
 * Passive collection: off by default; on per site (allow list) or on all sites; a deny list
 * that always wins; a pause; never in private windows.
 *
 * The content script is registered only for the sites being collected (and only while not
 * paused), so nothing runs on other pages. Pages collected while the server is down wait in
 * an outbox in storage.local and go out when it is back, because the worker holding them in
 * memory could be stopped in between.
 */
import { api } from "../shared/api.js";
import { loadSettings, saveSettings } from "../shared/settings.js";
import { ALL_SITES_PATTERNS, siteListed, siteOf, sitePatterns } from "../shared/sites.js";
import { isUnreachable } from "../shared/status.js";
import { request } from "./server.js";

const SCRIPT_ID = "winnow-collect";

/** Pages kept while the server is down; the oldest go first past these limits. */
const OUTBOX_MAX_PAGES = 50;
const OUTBOX_MAX_CHARS = 8_000_000;

/**
 * Should a page in this tab be collected?
 * @param {{incognito: boolean, url?: string}} tab
 * @param {typeof import("../shared/settings.js").DEFAULT_SETTINGS} settings
 */
export function collecting(tab, settings) {
  const site = siteOf(tab.url ?? "");
  if (!site || tab.incognito || settings.collectPaused) return false;
  if (siteListed(site, settings.denySites)) return false;
  return settings.collectAll || siteListed(site, settings.allowSites);
}

let syncing = Promise.resolve();

/**
 * Register (or unregister) the collecting content script so that it matches exactly the
 * sites being collected. Called on start and whenever the settings change; calls run one
 * after another, as two concurrent re-registrations would collide on the script id.
 */
export function syncContentScript() {
  syncing = syncing.catch(() => {}).then(registerForSettings);
  return syncing;
}

async function registerForSettings() {
  const settings = await loadSettings();
  const matches = settings.collectAll ? [...ALL_SITES_PATTERNS] : settings.allowSites.flatMap(sitePatterns);
  const excludeMatches = settings.denySites.flatMap(sitePatterns);
  const registered = await api.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (registered.length) await api.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  if (settings.collectPaused || matches.length === 0) return;
  await api.scripting.registerContentScripts([{
    id: SCRIPT_ID,
    js: ["content/content.js"],
    matches,
    excludeMatches,
    runAt: "document_idle",
    persistAcrossSessions: true,
  }]);
}

/**
 * Apply a change from the popup: collect this site or not, all sites or not, pause or not.
 * The extension alone decides what is collected (it knows the pause, the deny list and
 * private windows), so it sends each page's `collect` flag and never turns on the server's
 * per-site `collect` setting, which would store pages the extension marked not collected.
 * @param {{site?: string, on?: boolean, all?: boolean, paused?: boolean}} change
 */
export async function changeCollection(change) {
  const settings = await loadSettings();
  const next = {};
  if (change.site) {
    const others = settings.allowSites.filter((site) => site !== change.site);
    next.allowSites = change.on ? [...others, change.site] : others;
    if (change.on) next.denySites = settings.denySites.filter((site) => site !== change.site);
  }
  if (typeof change.all === "boolean") next.collectAll = change.all;
  if (typeof change.paused === "boolean") next.collectPaused = change.paused;
  const saved = await saveSettings(next);
  await syncContentScript();
  return saved;
}

let outboxWrites = Promise.resolve();

/**
 * Keep a collected page the server could not take in the outbox, until the connection is
 * back; writes are serialized so concurrent pages are all kept.
 * @param {{url: string, title: string, html: string}} page
 */
export function addToOutbox(page) {
  outboxWrites = outboxWrites.then(() => appendToOutbox(page)).catch(() => {});
  return outboxWrites;
}

async function appendToOutbox(page) {
  const { outbox = [] } = await api.storage.local.get("outbox");
  outbox.push({ url: page.url, title: page.title, html: page.html });
  let chars = outbox.reduce((sum, item) => sum + item.html.length, 0);
  while (outbox.length > OUTBOX_MAX_PAGES || (chars > OUTBOX_MAX_CHARS && outbox.length > 1)) {
    chars -= outbox.shift().html.length;
  }
  await api.storage.local.set({ outbox });
}

/** Drop a site's pages from the outbox (the site was forgotten). */
export function dropFromOutbox(site) {
  outboxWrites = outboxWrites.then(async () => {
    const { outbox = [] } = await api.storage.local.get("outbox");
    const kept = outbox.filter((page) => siteOf(page.url) !== site);
    if (kept.length !== outbox.length) await api.storage.local.set({ outbox: kept });
  }).catch(() => {});
  return outboxWrites;
}

let flushing = false;

/** Send the pages collected while offline (called when the connection comes up). */
export async function flushOutbox() {
  if (flushing) return;
  flushing = true;
  try {
    const { outbox = [] } = await api.storage.local.get("outbox");
    if (!outbox.length) return;
    await api.storage.local.remove("outbox");
    const sent = outbox.map((page) => request("page", { ...page, collect: true }));
    const results = await Promise.allSettled(sent);
    // A page the server could not be reached for waits for the next connection; a page
    // it refused is dropped.
    const retry = outbox.filter((_, i) => isUnreachable(results[i].reason));
    for (const page of retry) await addToOutbox(page);
  } finally {
    flushing = false;
  }
}
