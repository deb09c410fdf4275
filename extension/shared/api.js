/**
 * The WebExtension API of the running browser: Firefox's promise-based `browser`, else
 * Chromium's `chrome` (whose MV3 APIs also return promises).
 */
export const api = globalThis.browser ?? globalThis.chrome;
