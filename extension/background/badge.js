/**
 * The toolbar badge says the connection state at a glance: nothing when connected, a red
 * "off" when the server is not running (the tooltip says how to start it).
 */
import { api } from "../shared/api.js";
import { statusSummary } from "../shared/status.js";

const BADGE = {
  online: { text: "", color: "#2f9e44" },
  connecting: { text: "…", color: "#868e96" },
  offline: { text: "off", color: "#c92a2a" },
};

/** @param {import("./connection.js").ConnectionStatus} status */
export function showStatusOnBadge(status) {
  const badge = BADGE[status.state];
  api.action.setBadgeText({ text: badge.text }).catch(() => {});
  api.action.setBadgeBackgroundColor({ color: badge.color }).catch(() => {});
  api.action.setTitle({ title: `Winnow — ${statusSummary(status)}` }).catch(() => {});
}
