/**
 * Every message that crosses an extension boundary, one list per direction, and the helpers
 * that send, check and answer them. Replies are always `{ok: true, ...}` or
 * `{ok: false, error: {code, message}}` so errors cross the boundary explicitly.
 */
import { api } from "./api.js";

/** Extension pages (popup, reader, options) → background. */
export const PAGE_TO_BACKGROUND = Object.freeze([
  "status:get",      // connection state for the popup, reader and options pages
  "reconnect",       // retry the server now instead of waiting for the backoff
  "tab:info",        // what the extension knows about a tab: site, collection, highlight
  "reader:open",     // open the reader view for a tab
  "reader:get",      // the extraction result the reader view of a tab shows
  "highlight:set",   // turn noise highlighting on or off in a tab
  "collect:set",     // change passive collection (this site, all sites, pause)
  "stats:get",       // pages the server has collected
  "export:get",      // an export file (json, csv, markdown) for a tab's page
  "wire:log",        // the last protocol messages, for the options page's diagnostics
  "tab:show",        // bring the source page of a reader view forward, or open its URL
  "site:forget",     // delete a site's pages and model on the server, and the extension's traces
]);

/** Content script → background. */
export const CONTENT_TO_BACKGROUND = Object.freeze([
  "content:hello",   // a content script started, or the page's URL changed: should it send?
  "content:page",    // a serialized page, sent on load when collecting or after SPA navigation
  "content:unhighlight", // the legend's close button turned highlighting off
  "content:readable", // the cheap check's verdict: the page is an article, a thread, or neither
]);

/** Background → content script. */
export const BACKGROUND_TO_CONTENT = Object.freeze([
  "wn:ping",         // is the content script already in this tab?
  "wn:serialize",    // stamp a clone, serialize it and return it
  "wn:highlight",    // outline the noise and content ids of the last serialization
  "wn:unhighlight",  // remove every trace of highlighting
]);

/** Background → extension pages (broadcast, no reply expected). */
export const BACKGROUND_BROADCAST = Object.freeze([
  "status:changed",  // the connection state changed
  "result:changed",  // a tab has a new extraction result (load, SPA navigation)
]);

/** An error that crosses a message boundary as `{code, message}`. */
export class WinnowError extends Error {
  /**
   * @param {string} code machine-readable reason, e.g. "offline", "no_access", "not_found"
   * @param {string} message a sentence a person can act on
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Turn any thrown value into the plain `{code, message}` that a reply carries.
 * @param {unknown} err
 * @returns {{code: string, message: string}}
 */
function serializeError(err) {
  if (err instanceof WinnowError) return { code: err.code, message: err.message };
  return { code: "internal", message: String(err?.message ?? err) };
}

/**
 * Send a message and unwrap its reply: resolve with the reply's fields, or throw a
 * WinnowError carrying the remote error.
 * @param {Promise<any>} sending the promise of runtime.sendMessage or tabs.sendMessage
 * @returns {Promise<object>}
 */
async function unwrap(sending) {
  const reply = await sending;
  if (!reply) throw new WinnowError("no_reply", "The extension did not answer; try again.");
  if (!reply.ok) throw new WinnowError(reply.error.code, reply.error.message);
  return reply;
}

/**
 * Ask the background something from an extension page.
 * @param {string} type one of PAGE_TO_BACKGROUND
 * @param {object} [fields]
 */
export function askBackground(type, fields = {}) {
  if (!PAGE_TO_BACKGROUND.includes(type)) throw new Error(`unknown message type ${type}`);
  return unwrap(api.runtime.sendMessage({ type, ...fields }));
}

/**
 * Ask the content script of a tab something, from the background.
 * @param {number} tabId
 * @param {string} type one of BACKGROUND_TO_CONTENT
 * @param {object} [fields]
 */
export function askContent(tabId, type, fields = {}) {
  if (!BACKGROUND_TO_CONTENT.includes(type)) throw new Error(`unknown message type ${type}`);
  return unwrap(api.tabs.sendMessage(tabId, { type, ...fields }, { frameId: 0 }));
}

/**
 * Tell every open extension page something; no page being open is not an error.
 * @param {string} type one of BACKGROUND_BROADCAST
 * @param {object} [fields]
 */
export function broadcast(type, fields = {}) {
  if (!BACKGROUND_BROADCAST.includes(type)) throw new Error(`unknown message type ${type}`);
  api.runtime.sendMessage({ type, ...fields }).catch(() => {});
}

/**
 * Listen for broadcasts in an extension page.
 * @param {(message: {type: string}) => void} onMessage called for each known broadcast
 */
export function onBroadcast(onMessage) {
  api.runtime.onMessage.addListener((message, sender) => {
    if (sender.id !== api.runtime.id || !BACKGROUND_BROADCAST.includes(message?.type)) return;
    onMessage(message);
  });
}

/**
 * Which list a message may come from, judged by its sender: our own extension pages, or a
 * content script running in a web page tab. Anything else (other extensions, web pages via
 * externally_connectable) is refused.
 * @param {chrome.runtime.MessageSender} sender
 * @returns {"page"|"content"|null}
 */
function senderKind(sender) {
  if (sender.id !== api.runtime.id) return null;
  const ownPage = (sender.url ?? "").startsWith(api.runtime.getURL(""));
  if (ownPage) return "page";
  if (sender.tab && typeof sender.tab.id === "number") return "content";
  return null;
}

/**
 * Serve a table of handlers: check the sender and the type against the right list, run the
 * handler, and reply `{ok, ...}` with errors serialized. Broadcasts are ignored here.
 * @param {{page: Object<string, Function>, content: Object<string, Function>}} handlers
 */
export function serveMessages(handlers) {
  const allowed = { page: PAGE_TO_BACKGROUND, content: CONTENT_TO_BACKGROUND };
  api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    const kind = senderKind(sender);
    const type = message?.type;
    if (BACKGROUND_BROADCAST.includes(type)) return false;
    if (!kind || !allowed[kind].includes(type)) {
      sendResponse({ ok: false, error: { code: "refused", message: `${type} not accepted` } });
      return false;
    }
    Promise.resolve()
      .then(() => handlers[kind][type](message, sender))
      .then((reply) => sendResponse({ ok: true, ...reply }))
      .catch((err) => sendResponse({ ok: false, error: serializeError(err) }));
    return true;
  });
}

/**
 * Keep an extension page showing the newest connection status: `show` gets the status the
 * background reports now, then every change it broadcasts. The listener is in place before
 * the question goes out, and a reply that comes after a broadcast is older than it and is
 * dropped (every change is broadcast, so the last broadcast is the newest status). Without
 * this, a page opened while the worker starts can miss the "online" change for good.
 * @param {(status: object) => void} show
 * @returns {Promise<void>} settles once the first status was shown or dropped
 */
export function followStatus(show) {
  let heard = false;
  onBroadcast((message) => {
    if (message.type !== "status:changed") return;
    heard = true;
    show(message.status);
  });
  return askBackground("status:get").then(({ status }) => {
    if (!heard) show(status);
  });
}
