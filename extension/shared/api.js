/**
 * The WebExtension API of the running browser: Firefox's promise-based `browser`, else
 * Chromium's `chrome` (whose MV3 APIs also return promises).
 */
export const api = globalThis.browser ?? globalThis.chrome;

/** The reader view's keyboard shortcut as the user has it bound, or "" when it is unbound. */
export async function readerShortcut() {
  const commands = await api.commands.getAll();
  return commands.find((command) => command.name === "open-reader")?.shortcut || "";
}
