/**
 * The background worker (an MV3 service worker in Chromium, an event page in Firefox). It can
 * be stopped whenever it is idle, so everything it must remember lives in storage; this
 * module only wires events to the modules that do the work:
 *
 * - server.js: the WebSocket to `winnow serve` and its status (badge, storage);
 * - pages.js: reading a tab's page, its result, the reader view, highlighting, export;
 * - collect.js: passive collection (site lists, the registered content script, the outbox).
 */
import { api } from "../shared/api.js";
import { WinnowError, serveMessages } from "../shared/messages.js";
import { forgetPositions } from "../shared/positions.js";
import { loadSettings } from "../shared/settings.js";
import {
  addToOutbox, changeCollection, collecting, dropFromOutbox, flushOutbox, syncContentScript,
} from "./collect.js";
import {
  applyHighlight, exportTab, extracting, forgetTab, openReader, readerResult, sendPage, setHighlight,
  showSource, tabInfo,
} from "./pages.js";
import { clearReadable, showReadable, syncReadableScript } from "./readable.js";
import {
  connection, currentStatus, onStatusChange, reconnectNow, replaceConnection, request, wireMessages,
} from "./server.js";

const MENU_READER = "winnow-reader";
const MENU_HIGHLIGHT = "winnow-highlight";

/** Pages (popup, reader, options) → background. */
const pageHandlers = {
  "status:get": async () => ({ status: await currentStatus() }),
  "reconnect": async () => ({ status: await reconnectNow() }),
  "tab:info": ({ tabId }) => tabInfo(tabId),
  "reader:open": async ({ tabId }) => openReader(await api.tabs.get(tabId)),
  "reader:get": ({ tabId }) => readerResult(tabId),
  "highlight:set": ({ tabId, on }) => setHighlight(tabId, Boolean(on)),
  "collect:set": async (message) => ({ settings: await changeCollection(message) }),
  "stats:get": ({ site }) => request("stats", site ? { site } : {}),
  "export:get": ({ tabId, format }) => exportTab(tabId, format),
  "wire:log": async () => ({ messages: wireMessages() }),
  "tab:show": ({ tabId, url }, sender) => showSource({ tabId, url }, sender.tab),
  "site:forget": ({ site }) => forgetSite(site),
};

/** Content scripts → background. The tab always comes from the sender, never the message. */
const contentHandlers = {
  "content:hello": async ({ reason }, sender) => {
    if (sender.tab.incognito) return { send: false };   // private windows never send pages
    // A script the background injected to read the page now must not send it a second time.
    if (reason === "load" && extracting(sender.tab.id)) return { send: false };
    const wanted = reason === "navigation" || collecting(sender.tab, await loadSettings());
    return { send: wanted };
  },
  "content:page": (message, sender) => receivePage(sender.tab, message),
  "content:unhighlight": async (message, sender) => setHighlight(sender.tab.id, false),
  "content:readable": ({ kind, ms }, sender) => showReadable(sender.tab, { kind, ms }),
};

/**
 * Forget a site: its pages and model on the server, and what the extension keeps of it
 * (reading positions, pages waiting in the outbox).
 */
async function forgetSite(site) {
  if (typeof site !== "string" || !site) throw new WinnowError("bad_request", "No site to forget.");
  const reply = await request("forget_site", { site });
  await Promise.all([forgetPositions(site), dropFromOutbox(site)]);
  return { site: reply.site, pages_deleted: reply.pages_deleted };
}

/**
 * A page the content script sent by itself: on load of a collected site, or after a
 * history navigation. Offline, a collected page waits in the outbox.
 */
async function receivePage(tab, page) {
  const status = await currentStatus();
  if (status.state !== "online" && collecting({ ...tab, url: page.url }, await loadSettings())) {
    await addToOutbox(page);
    return { queued: true };
  }
  const state = await sendPage(tab, page);
  if (page.highlighted) await applyHighlight(tab.id, state);
  return { stored: Boolean(state.result.stored) };
}

/** Run a toolbar, menu or keyboard action on a tab, reporting failures on the badge title. */
async function runAction(action, tab) {
  try {
    if (action === MENU_READER) return await openReader(tab);
    const probe = await tabInfo(tab.id);
    return await setHighlight(tab.id, !probe.highlighted);
  } catch (err) {
    const text = err instanceof WinnowError ? err.message : String(err);
    api.action.setTitle({ tabId: tab.id, title: `Winnow — ${text}` }).catch(() => {});
    return null;
  }
}

/** The page's context menu entries (menus persist, so they are made once per install). */
async function createMenus() {
  await api.contextMenus.removeAll();
  api.contextMenus.create({ id: MENU_READER, title: "Open in Winnow reader view", contexts: ["page", "selection"] });
  api.contextMenus.create({ id: MENU_HIGHLIGHT, title: "Highlight template noise", contexts: ["page", "selection"] });
}

const COMMANDS = { "open-reader": MENU_READER, "toggle-highlight": MENU_HIGHLIGHT };

async function activeTab() {
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  return tab;
}

serveMessages({ page: pageHandlers, content: contentHandlers });

api.runtime.onInstalled.addListener(() => {
  createMenus().catch(() => {});
  syncContentScript().catch(() => {});
  syncReadableScript().catch(() => {});
});
api.runtime.onStartup.addListener(() => {
  syncContentScript().catch(() => {});
  syncReadableScript().catch(() => {});
});
api.permissions.onAdded.addListener(() => syncReadableScript().catch(() => {}));
api.permissions.onRemoved.addListener(() => syncReadableScript().catch(() => {}));

api.contextMenus.onClicked.addListener((info, tab) => {
  if (tab?.id >= 0) runAction(info.menuItemId, tab);
});

api.commands.onCommand.addListener(async (command, tab) => {
  const target = tab ?? (await activeTab());
  if (COMMANDS[command] && target) runAction(COMMANDS[command], target);
});

api.tabs.onRemoved.addListener((tabId) => {
  forgetTab(tabId).catch(() => {});
  clearReadable(tabId).catch(() => {});
});
// A new page in a tab is checked anew; until then its tab shows the global badge.
api.tabs.onUpdated.addListener((tabId, change) => {
  if (change.status === "loading") clearReadable(tabId).catch(() => {});
});

api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !changes.settings) return;
  const before = changes.settings.oldValue ?? {};
  const after = changes.settings.newValue ?? {};
  if (before.server !== after.server || before.token !== after.token) replaceConnection();
  syncContentScript().catch(() => {});
});

onStatusChange((status) => {
  if (status.state === "online") flushOutbox().catch(() => {});
});

connection();
