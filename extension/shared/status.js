/**
 * Connection status in words, shared by the badge tooltip, the popup and the reader view, so
 * everywhere says the same thing about a server that is not running; and which request
 * errors mean the server could not be reached.
 */

/**
 * How to start the server, as the README says it: `make run` in the Winnow checkout, or the
 * server that installed, by its path from there (`winnow serve` is on the PATH only inside
 * the venv). statusSummary says it; popup.html and reader.html say the same in their markup.
 */
const START_HINT = Object.freeze({
  fromCheckout: "make run",
  installed: ".venv/bin/winnow serve",
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
  return `the server is not running. Start it in the Winnow checkout with \`${START_HINT.fromCheckout}\` (or \`${START_HINT.installed}\`).`;
}

/**
 * Did a request fail because the server could not be reached (not running, or too slow)?
 * Such a request can be tried again later; any other error is the server's answer.
 * @param {{code?: string}} err
 */
export function isUnreachable(err) {
  return err?.code === "offline" || err?.code === "timeout";
}

/**
 * Seconds until the next reconnect attempt, or null when none is scheduled.
 * @param {{retryAt: number|null}} status
 */
export function secondsToRetry(status) {
  if (!status.retryAt) return null;
  return Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
}
