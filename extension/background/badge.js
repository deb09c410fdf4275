/**
 * The toolbar badge says the connection state at a glance: nothing when connected, a red
 * "off" when the server is not running (the tooltip says how to start it). On a tab whose
 * page can be read (content/readable.js), that tab's badge says so instead.
 */
import { api } from "../shared/api.js";
import { statusSummary } from "../shared/status.js";

const BADGE = {
  online: { text: "", color: "#2f9e44" },
  connecting: { text: "…", color: "#868e96" },
  offline: { text: "off", color: "#c92a2a" },
};

/** The badge of a tab whose page is an article or a thread. */
const READABLE = { text: "read", color: "#1f5f8b" };

const READABLE_TITLE = {
  article: "Winnow — this page is an article: open its reader view",
  thread: "Winnow — this page is a thread: open its posts in the reader view",
};

/** @param {import("./connection.js").ConnectionStatus} status */
export function showStatusOnBadge(status) {
  const badge = BADGE[status.state];
  api.action.setBadgeText({ text: badge.text }).catch(() => {});
  api.action.setBadgeBackgroundColor({ color: badge.color }).catch(() => {});
  api.action.setTitle({ title: `Winnow — ${statusSummary(status)}` }).catch(() => {});
}

/**
 * Show on a tab's badge that its page can be read, or give the tab back the global badge
 * (null text and title make a tab inherit them).
 * @param {number} tabId
 * @param {"article"|"thread"|null} kind
 */
export function showReadableOnBadge(tabId, kind) {
  quietly(() => api.action.setBadgeText({ tabId, text: kind ? READABLE.text : null }));
  if (kind) quietly(() => api.action.setBadgeBackgroundColor({ tabId, color: READABLE.color }));
  quietly(() => api.action.setTitle({ tabId, title: kind ? READABLE_TITLE[kind] : null }));
}

/** Call a badge setter, ignoring a tab closed meanwhile (a rejection, or a throw). */
function quietly(set) {
  try {
    set().catch(() => {});
  } catch {
    // the tab is gone, or the browser refused the value: the badge stays as it was
  }
}
