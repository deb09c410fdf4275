/**
 * Connection status in words, shared by the badge tooltip, the popup and the reader view, so
 * everywhere says the same thing about a server that is not running.
 */

/** How to start the server, as the popup and reader view show it. */
export const START_HINT = Object.freeze({
  command: "winnow serve",
  fromCheckout: "make run",
});

/**
 * One line for a tooltip or a status bar.
 * @param {{state: string, server: {version?: string}|null, url: string}} status
 */
export function statusSummary(status) {
  if (status.state === "online") {
    const version = status.server?.version ? ` ${status.server.version}` : "";
    return `connected to the Winnow server${version}`;
  }
  if (status.state === "connecting") return "connecting to the Winnow server…";
  return `the server is not running. Start it with \`${START_HINT.command}\` (or \`${START_HINT.fromCheckout}\` in a Winnow checkout).`;
}

/**
 * Seconds until the next reconnect attempt, or null when none is scheduled.
 * @param {{retryAt: number|null}} status
 */
export function secondsToRetry(status) {
  if (!status.retryAt) return null;
  return Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
}
