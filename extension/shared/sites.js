/**
 * Site keys and host-permission patterns. A site is the page's host without a leading
 * `www.`, the same key the server files pages under.
 */

/**
 * @param {string} url
 * @returns {string|null} the site key, or null for pages that are not http(s)
 */
export function siteOf(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  return parsed.hostname.replace(/^www\./, "");
}

/** True for hosts that are IP addresses or single labels (localhost), which have no subdomains. */
function isBareHost(host) {
  return !host.includes(".") || /^[\d.]+$/.test(host) || host.startsWith("[");
}

/**
 * Match patterns for a site's pages: `*://*.site/*` covers http, https and subdomains
 * (www. included); IP addresses and localhost get `*://host/*`.
 * @param {string} site
 * @returns {string[]}
 */
export function sitePatterns(site) {
  return isBareHost(site) ? [`*://${site}/*`] : [`*://*.${site}/*`];
}

/** The broad patterns that collection on all sites needs. */
export const ALL_SITES_PATTERNS = Object.freeze(["http://*/*", "https://*/*"]);

/**
 * Is a site on a list? A listed site covers its subdomains too (news.example.com is on a list
 * holding example.com).
 * @param {string} site
 * @param {string[]} list
 */
export function siteListed(site, list) {
  return list.some((entry) => site === entry || site.endsWith(`.${entry}`));
}

/**
 * Parse a textarea of sites, one per line (URLs are accepted and reduced to their site).
 * @param {string} text
 * @returns {string[]}
 */
export function parseSiteList(text) {
  const sites = text
    .split(/\s+/)
    .map((line) => line.trim().toLowerCase())
    .filter(Boolean)
    .map((entry) => siteOf(entry.includes("://") ? entry : `http://${entry}`))
    .filter(Boolean);
  return [...new Set(sites)];
}

/**
 * The host access to ask for before collecting the site of `url`: the site's pattern, but for
 * an IP address or localhost only the page's own scheme (the local server's http access
 * already covers http://127.0.0.1, so asking for https too would prompt for nothing useful).
 * @param {string} url
 * @returns {string[]}
 */
export function permissionPatterns(url) {
  const parsed = new URL(url);
  const site = siteOf(url);
  return isBareHost(site) ? [`${parsed.protocol}//${parsed.hostname}/*`] : sitePatterns(site);
}
