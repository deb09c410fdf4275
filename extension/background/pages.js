/**
 * What the extension does with one tab's page: read it through the content script, send it
 * to the server, keep the latest result per tab in storage.session (a restarted worker and
 * the reader page find it there), highlight it, export it, open its reader view.
 */
import { api } from "../shared/api.js";
import { WinnowError, askContent, broadcast } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { siteOf } from "../shared/sites.js";
import { isUnreachable } from "../shared/status.js";
import { addToOutbox, collecting } from "./collect.js";
import { request } from "./server.js";

const HIGHLIGHT_CSS = ["content/highlight.css"];

/** In-flight extractions per tab, so a reader request and a highlight share one round trip. */
const inFlight = new Map();

/**
 * The result a reader view just opened by openReader will ask for, handed over once so its
 * first request skips checking the page again (that check costs three messages).
 */
const openingReaders = new Map();

const stateKey = (tabId) => `tab:${tabId}`;

/** The stored state of a tab: {url, title, site, instance, serial, serializeMs, result, at}, or null. */
async function tabState(tabId) {
  const key = stateKey(tabId);
  return (await api.storage.session.get(key))[key] ?? null;
}

async function saveTabState(tabId, state) {
  await api.storage.session.set({ [stateKey(tabId)]: state });
  broadcast("result:changed", { tabId });
  return state;
}

/** Forget a closed tab. */
export function forgetTab(tabId) {
  return api.storage.session.remove(stateKey(tabId));
}

/** The tab, or null when it has been closed. */
function openTab(tabId) {
  return api.tabs.get(tabId).catch(() => null);
}

/**
 * What the tab's content script says about itself (instance, serial, highlighted), or null
 * when none runs there.
 */
function pingContent(tabId) {
  return askContent(tabId, "wn:ping").catch(() => null);
}

/**
 * Make sure the content script runs in the tab (it guards against running twice).
 * @throws {WinnowError} no_access for pages the extension may not script
 */
async function ensureContent(tabId) {
  try {
    return await askContent(tabId, "wn:ping");
  } catch {
    try {
      await api.scripting.executeScript({ target: { tabId }, files: ["content/content.js"] });
    } catch (err) {
      throw new WinnowError("no_access",
        `Winnow cannot read this page (browser pages and extension stores are off limits): ${err.message}`);
    }
    return askContent(tabId, "wn:ping");
  }
}

/**
 * Read the tab's page and extract it on the server; collect it when collection is on for
 * the tab.
 * @returns {Promise<object>} the tab state with the result
 */
function extractTab(tabId) {
  if (!inFlight.has(tabId)) {
    const job = readAndExtract(tabId).finally(() => inFlight.delete(tabId));
    inFlight.set(tabId, job);
  }
  return inFlight.get(tabId);
}

/** Is the tab's page being read and extracted right now? */
export function extracting(tabId) {
  return inFlight.has(tabId);
}

/**
 * Pages of private windows are never read or sent (the manifest keeps the extension out of
 * them; this holds even where a browser lets a user allow it in).
 * @throws {WinnowError} private
 */
function refusePrivate(tab) {
  if (tab?.incognito) {
    throw new WinnowError("private", "Winnow never reads pages of private windows.");
  }
}

async function readAndExtract(tabId) {
  const tab = await api.tabs.get(tabId);
  refusePrivate(tab);
  await ensureContent(tabId);
  const page = await askContent(tabId, "wn:serialize");
  return sendPage(tab, page);
}

/**
 * Send a serialized page for extraction and store the result as the tab's state.
 * @param {chrome.tabs.Tab} tab
 * @param {{instance: string, serial: number, url: string, title: string, html: string, ms: number}} page
 */
export async function sendPage(tab, page) {
  refusePrivate(tab);
  const collect = collecting({ incognito: tab.incognito, url: page.url }, await loadSettings());
  const fields = { url: page.url, title: page.title || null, html: page.html, collect };
  let result;
  try {
    result = await request("page", fields);
  } catch (err) {
    if (collect && isUnreachable(err)) await addToOutbox(page);
    throw new WinnowError(err.code ?? "internal", err.message);
  }
  return saveTabState(tab.id, {
    url: page.url, title: page.title, site: siteOf(page.url),
    instance: page.instance, serial: page.serial, serializeMs: page.ms,
    result, at: Date.now(),
  });
}

/**
 * The tab's result for the page as its content script last read it; the page is read and
 * sent again only when it changed since (reloaded, navigated, or never read), so the reader,
 * highlighting and export share one round trip.
 */
async function currentResult(tabId) {
  const [stored, probe] = await Promise.all([tabState(tabId), pingContent(tabId)]);
  const same = stored && probe && probe.instance === stored.instance && probe.serial === stored.serial;
  return same ? stored : extractTab(tabId);
}

/**
 * The result a reader view of the tab shows: the current one, or the last one when the
 * tab has been closed since.
 */
export async function readerResult(tabId) {
  const opening = openingReaders.get(tabId);
  if (opening) {
    openingReaders.delete(tabId);
    return opening;
  }
  if (await openTab(tabId)) return currentResult(tabId);
  const stored = await tabState(tabId);
  if (!stored) throw new WinnowError("not_found", "The page's tab is closed.");
  return stored;
}

/**
 * Open the reader view in a new tab beside the page, starting the extraction at once so the
 * round trip overlaps with the reader page loading.
 * @param {chrome.tabs.Tab} tab
 */
export async function openReader(tab) {
  const job = currentResult(tab.id);
  job.catch(() => {});   // the reader page gets the same promise and shows any error
  openingReaders.set(tab.id, job);
  // A reader's address is new each time: the reader keeps what it shows under it.
  const opened = Date.now().toString(36);
  const url = api.runtime.getURL(`reader/reader.html?tab=${tab.id}&at=${opened}`);
  const created = await api.tabs.create({ url, index: tab.index + 1, openerTabId: tab.id, windowId: tab.windowId });
  return { readerTabId: created.id };
}

/** A URL without its fragment: the same page scrolled elsewhere is the same page. */
const samePage = (a, b) => Boolean(a && b) && a.split("#")[0] === b.split("#")[0];

/**
 * Bring a reader's source page forward: switch to its tab when the tab still shows the page,
 * else open the page's URL in a new tab beside the reader (never inside the reader's tab).
 * @param {{tabId: number, url: string}} source the reader's source tab and page URL
 * @param {chrome.tabs.Tab|undefined} readerTab the reader's own tab, where the request came from
 * @returns {Promise<{tabId: number, switched: boolean}>}
 */
export async function showSource({ tabId, url }, readerTab) {
  const tab = await openTab(tabId);
  // tab.url is known where the extension has access; else the content script says its URL.
  const shownUrl = tab && (tab.url || (await pingContent(tabId))?.url);
  if (tab && samePage(shownUrl, url)) {
    await api.tabs.update(tab.id, { active: true });
    await api.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return { tabId: tab.id, switched: true };
  }
  const placement = readerTab ? { index: readerTab.index + 1, windowId: readerTab.windowId } : {};
  const created = await api.tabs.create({ url, ...placement });
  return { tabId: created.id, switched: false };
}

/**
 * Turn noise highlighting on or off in a tab.
 * @returns {Promise<{highlighted: boolean, noise?: number, content?: number}>}
 */
export async function setHighlight(tabId, on) {
  if (!on) {
    await askContent(tabId, "wn:unhighlight").catch(() => {});
    await api.scripting.removeCSS({ target: { tabId }, files: HIGHLIGHT_CSS }).catch(() => {});
    return { highlighted: false };
  }
  try {
    return await applyHighlight(tabId, await currentResult(tabId));
  } catch (err) {
    // The page was read again (a history navigation) between the result and the highlight.
    if (err.code !== "stale") throw err;
    return applyHighlight(tabId, await extractTab(tabId));
  }
}

/** Send a state's ids to the content script and insert the highlight styles. */
export async function applyHighlight(tabId, state) {
  await api.scripting.insertCSS({ target: { tabId }, files: HIGHLIGHT_CSS });
  const { noise_ids: noiseIds, content_ids: contentIds } = state.result;
  const counts = await askContent(tabId, "wn:highlight", { serial: state.serial, noise_ids: noiseIds, content_ids: contentIds });
  return { highlighted: true, noise: counts.noise, content: counts.content };
}

/**
 * An export file of the tab's page. A page the server stored is exported by its id; any
 * other page is read again from its tab and sent along.
 * @param {number} tabId
 * @param {"json"|"csv"|"markdown"} format
 */
export async function exportTab(tabId, format) {
  const state = await readerResult(tabId);
  const pageId = state.result?.page_id;
  let reply;
  if (typeof pageId === "number") {
    reply = await request("export", { format, page_id: pageId });
  } else {
    const tab = await openTab(tabId);
    if (!tab) {
      throw new WinnowError("not_found", "The page's tab is closed; open the page again to export it.");
    }
    refusePrivate(tab);
    await ensureContent(tabId);
    // A copy for the export only: the ids of the result the tab shows stay valid.
    const page = await askContent(tabId, "wn:serialize", { keep: false });
    reply = await request("export", { format, url: page.url, html: page.html });
  }
  return { filename: reply.filename, media_type: reply.media_type, content: reply.content };
}

/**
 * What the popup needs about a tab: its site, whether it is collected and highlighted. (The
 * connection status comes apart, with followStatus, so that no change is missed.)
 */
export async function tabInfo(tabId) {
  const [tab, settings, probe] = await Promise.all([
    api.tabs.get(tabId), loadSettings(), pingContent(tabId),
  ]);
  return {
    tab: { id: tab.id, url: tab.url ?? null, title: tab.title ?? "", incognito: tab.incognito },
    site: siteOf(tab.url ?? ""),
    collecting: collecting(tab, settings),
    highlighted: Boolean(probe?.highlighted),
    settings,
  };
}
