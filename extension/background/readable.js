/**
 * The "this page can be read" sign on the toolbar: content/readable.js checks a page where it
 * loads and tells the background, which shows it on that tab's badge. The check is
 * registered for the hosts the extension may read anyway (its host permissions: the local
 * server's hosts, and the sites the user granted for collection), so it needs no access of
 * its own; it sends nothing of the page anywhere.
 */
import { api } from "../shared/api.js";
import { showReadableOnBadge } from "./badge.js";

const SCRIPT_ID = "winnow-readable";

/** Granted origins that are match patterns a content script can use. */
const SCRIPTABLE = /^(?:https?|\*):\/\//;

let syncing = Promise.resolve();

/**
 * Register the check for exactly the hosts the extension has access to (called on start and
 * when permissions change); calls run one after another, as the collect script's do.
 */
export function syncReadableScript() {
  syncing = syncing.catch(() => {}).then(registerForPermissions);
  return syncing;
}

async function registerForPermissions() {
  const { origins = [] } = await api.permissions.getAll();
  const matches = origins.filter((origin) => SCRIPTABLE.test(origin));
  const registered = await api.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (registered.length) await api.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  if (!matches.length) return;
  await api.scripting.registerContentScripts([{
    id: SCRIPT_ID,
    js: ["content/readable.js"],
    matches,
    runAt: "document_idle",
    persistAcrossSessions: true,
  }]);
}

const verdictKey = (tabId) => `readable:${tabId}`;

/**
 * What a tab's check found: "article", "thread" or null. The verdict (and what the check
 * cost, ms) is kept in storage.session beside the tab's other state, where the popup and the
 * browser tests read it.
 * @param {chrome.tabs.Tab} tab
 * @param {{kind: string|null, ms?: number}} verdict
 */
export async function showReadable(tab, { kind, ms }) {
  const known = kind === "article" || kind === "thread" ? kind : null;
  showReadableOnBadge(tab.id, known);
  const cost = Number.isFinite(ms) ? Math.round(ms * 10) / 10 : null;
  await api.storage.session.set({ [verdictKey(tab.id)]: { kind: known, ms: cost, at: Date.now() } });
  return { shown: Boolean(known) };
}

/** A tab that starts loading a new page loses its sign until that page is checked. */
export function clearReadable(tabId) {
  showReadableOnBadge(tabId, null);
  return api.storage.session.remove(verdictKey(tabId));
}
