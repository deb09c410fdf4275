/**
 * Reading positions, one per page URL, in storage.local (they outlive the browser session,
 * so a reader view opened again the next day starts where the last one stopped). A position
 * is the block the reader was at and how far into it, which survives a change of font size
 * or line width better than a pixel offset. Only the newest MAX_POSITIONS are kept, and
 * forgetting a site removes its positions with its pages.
 */
import { api } from "./api.js";
import { siteOf } from "./sites.js";

const KEY = "positions";

/** How many pages' positions are kept (the oldest go first). */
const MAX_POSITIONS = 200;

/** @typedef {{block: number, offset: number, at: number}} Position */

let writing = Promise.resolve();

/** Run storage changes one after another, so two writes cannot lose each other's entries. */
function change(update) {
  writing = writing.catch(() => {}).then(async () => {
    const { [KEY]: positions = {} } = await api.storage.local.get(KEY);
    const next = update(positions);
    await api.storage.local.set({ [KEY]: next });
  });
  return writing;
}

/** The page's key: its URL without the fragment. */
const pageKey = (url) => url.split("#")[0];

/**
 * @param {string} url
 * @returns {Promise<Position|null>}
 */
export async function loadPosition(url) {
  const { [KEY]: positions = {} } = await api.storage.local.get(KEY);
  return positions[pageKey(url)] ?? null;
}

/**
 * @param {string} url
 * @param {{block: number, offset: number}} position
 */
export function savePosition(url, position) {
  return change((positions) => {
    const next = { ...positions, [pageKey(url)]: { ...position, at: Date.now() } };
    const keys = Object.keys(next);
    if (keys.length > MAX_POSITIONS) {
      keys.sort((a, b) => next[a].at - next[b].at);
      for (const old of keys.slice(0, keys.length - MAX_POSITIONS)) delete next[old];
    }
    return next;
  });
}

/** Remove the positions of every page of a site. */
export function forgetPositions(site) {
  return change((positions) => Object.fromEntries(
    Object.entries(positions).filter(([url]) => siteOf(url) !== site)));
}
