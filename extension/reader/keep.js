/**
 * What a reader view keeps so it never loses its page:
 *
 * - the extraction it shows, in storage.session under the reader's own address (each reader
 *   tab has a new one), so a reload, a closed source tab or a restarted worker shows the same
 *   article, without the server; storage.session lasts until the browser closes, and only the
 *   newest MAX_READERS are kept there;
 * - the reading position per page URL (shared/positions.js), saved while scrolling and put
 *   back when the page is shown again.
 */
import { api } from "../shared/api.js";
import { loadPosition, savePosition } from "../shared/positions.js";

/** Reader states kept in storage.session (the oldest go first; the quota is 10 MB). */
const MAX_READERS = 30;

/** The index of kept reader states: [{key, at}], oldest first. */
const INDEX_KEY = "readers";

/** How long scrolling must pause before the position is saved, ms. */
const POSITION_SAVE_MS = 400;

/** Blocks a position can point at, in document order. */
const POSITION_BLOCKS = "#main :is(h1, h2, h3, h4, h5, h6, p, li, figure, pre, blockquote, table, .post)";

/** Height of the sticky toolbar, px: the line a position is measured from. */
const TOOLBAR_PX = 56;

const readerKey = () => `reader:${location.pathname}${location.search}`;

/** The state this reader view showed last, or null. */
export async function keptState() {
  const key = readerKey();
  return (await api.storage.session.get(key))[key] ?? null;
}

/**
 * Keep the state shown (url, title, site, result) under the reader's address.
 * @param {{url: string, title: string, site: string|null, result: object}} state
 */
export async function keepState(state) {
  const key = readerKey();
  const { url, title, site, result } = state;
  const { [INDEX_KEY]: index = [] } = await api.storage.session.get(INDEX_KEY);
  const next = [...index.filter((entry) => entry.key !== key), { key, at: Date.now() }];
  const dropped = next.splice(0, Math.max(0, next.length - MAX_READERS)).map((entry) => entry.key);
  await api.storage.session.set({ [key]: { url, title, site, result, keptAt: Date.now() }, [INDEX_KEY]: next });
  if (dropped.length) await api.storage.session.remove(dropped);
}

function blocks() {
  return [...document.querySelectorAll(POSITION_BLOCKS)].filter((el) => el.getClientRects().length);
}

/** Where the reader is: the first block reaching below the toolbar, and how far into it. */
function currentPosition() {
  const list = blocks();
  const index = list.findIndex((el) => el.getBoundingClientRect().bottom > TOOLBAR_PX);
  if (index < 0) return null;
  const box = list[index].getBoundingClientRect();
  const offset = box.height ? Math.min(1, Math.max(0, (TOOLBAR_PX - box.top) / box.height)) : 0;
  return { block: index, offset };
}

/** Scroll back to a saved position (nothing when the page has fewer blocks now). */
function restore(position) {
  const target = blocks()[position.block];
  if (!target) return false;
  const box = target.getBoundingClientRect();
  scrollTo({ top: scrollY + box.top - TOOLBAR_PX + position.offset * box.height, behavior: "instant" });
  return true;
}

let tracked = null;     // the URL whose position scrolling saves
let saveTimer = null;

/**
 * Put the reader back where it was on this page and save the position as it scrolls.
 * @param {string} url the page's URL
 */
export async function followPosition(url) {
  tracked = null;
  const position = await loadPosition(url);
  if (position && (position.block > 0 || position.offset > 0)) restore(position);
  tracked = url;
}

function saveSoon() {
  if (!tracked) return;
  clearTimeout(saveTimer);
  const url = tracked;
  saveTimer = setTimeout(() => {
    const position = currentPosition();
    if (position && tracked === url) savePosition(url, position).catch(() => {});
  }, POSITION_SAVE_MS);
}

addEventListener("scroll", saveSoon, { passive: true });
