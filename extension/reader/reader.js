/**
 * The reader view: one extension page per source tab (`reader.html?tab=<id>`). It asks the
 * background for the tab's extraction result and shows an article (title, byline, date, lead
 * image, body, comments) or a thread (its posts, indented by reply depth), with the reader's
 * typography and theme preferences. While the server is not running it says so, and shows
 * the page as soon as the server answers.
 */
import { api } from "../shared/api.js";
import { askBackground, onBroadcast } from "../shared/messages.js";
import { clampReaderSize, loadSettings, saveSettings } from "../shared/settings.js";
import { siteOf } from "../shared/sites.js";
import { isUnreachable } from "../shared/status.js";
import { downloadText } from "../shared/download.js";
import { safeFragment, safeUrl } from "./render.js";

const $ = (id) => document.getElementById(id);
const root = document.documentElement;
const tabId = Number(new URLSearchParams(location.search).get("tab"));

/** Reading speed for the "min read" estimate, words per minute. */
const WORDS_PER_MINUTE = 230;
/** How much A− and A+ change the font size, px (within READER_SIZE of settings.js). */
const SIZE_STEP = 1;
/** Posts deeper than this are indented no further (keeps narrow screens readable). */
const MAX_INDENT_DEPTH = 6;

/** The views one state of the page shows (their element ids); everything else is hidden. */
const VIEWS = ["loading", "offline", "failure", "article", "thread"];

let current = null;     // the tab state shown: {url, title, site, result}
let loadingNow = false;

/** Show one view (and the colophon with content views). */
function showView(name) {
  for (const id of VIEWS) $(id).hidden = id !== name;
  $("colophon").hidden = name !== "article" && name !== "thread";
  root.dataset.state = name;
}

// ---------------------------------------------------------------- dates and small text

/**
 * A date for people: the ISO date in the reader's locale, or the page's own wording.
 * @param {string|null} iso
 * @param {string|null} shown the date as the page showed it
 * @param {boolean} withTime
 */
function formatDate(iso, shown = null, withTime = false) {
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return shown ?? "";
  const hasTime = withTime && /T\d\d:\d\d/.test(iso);
  return new Intl.DateTimeFormat(undefined, { dateStyle: "long", ...(hasTime ? { timeStyle: "short" } : {}) }).format(date);
}

/** A <time> element, or a span when the date is not machine-readable. */
function timeElement(iso, shown, withTime) {
  const text = formatDate(iso, shown, withTime);
  if (!text) return null;
  const el = document.createElement(iso ? "time" : "span");
  if (iso) el.dateTime = iso;
  el.textContent = text;
  if (shown && shown !== text) el.title = shown;
  return el;
}

/** Fill `target` with the non-empty parts, separated by middle dots. */
function fillMeta(target, parts) {
  target.replaceChildren();
  for (const part of parts.filter(Boolean)) {
    if (target.childNodes.length) target.append(document.createElement("i"));
    target.append(part);
  }
  target.hidden = !target.childNodes.length;
}

// ---------------------------------------------------------------- article

/** The article's body, without a first heading that repeats the title. */
function bodyFragment(article, base) {
  const fragment = safeFragment(article.html, base);
  const first = fragment.firstElementChild;
  if (first && /^h[1-2]$/.test(first.localName) && first.textContent.trim() === (article.title ?? "").trim()) first.remove();
  return fragment;
}

/**
 * Show the lead image only when the body does not open with an image or already contain
 * this one, so it never appears twice.
 */
function showLead(article, body, base) {
  const lead = article.lead_image ? safeUrl(article.lead_image, base, true) : null;
  const file = (url) => new URL(url).pathname.split("/").pop();
  const images = [...body.querySelectorAll("img")].map((img) => img.src).filter(Boolean);
  const opensWithImage = body.firstElementChild?.querySelector?.("img") || body.firstElementChild?.localName === "img";
  const duplicate = lead && images.some((src) => src === lead || file(src) === file(lead));
  $("lead").hidden = !lead || Boolean(opensWithImage) || duplicate;
  if (!$("lead").hidden) {
    const img = $("lead").querySelector("img");
    img.src = lead;
    img.addEventListener("error", () => { $("lead").hidden = true; }, { once: true });
  }
}

function renderArticle(state) {
  const { article } = state.result;
  const base = state.url;
  $("article").lang = article.lang ?? "";
  $("article").dir = article.dir ?? "auto";
  $("kicker").textContent = article.site_name || siteOf(base);
  $("title").textContent = article.title || state.title || siteOf(base);
  const minutes = Math.max(1, Math.round(article.word_count / WORDS_PER_MINUTE));
  fillMeta($("meta"), [
    article.byline,
    timeElement(article.published, null, false),
    article.word_count ? `${minutes} min read` : null,
  ]);
  $("body").replaceChildren(bodyFragment(article, base));
  showLead(article, $("body"), base);
  renderPosts($("comment-list"), article.comments ?? [], base);
  $("comments").hidden = !(article.comments ?? []).length;
  $("comments-title").textContent = `${article.comments?.length ?? 0} comments`;
  document.title = article.title || state.title || "Reader view";
  showView("article");
}

// ---------------------------------------------------------------- thread

/** Initials for a post's avatar circle. */
function initials(name) {
  const words = (name ?? "?").trim().split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words[0][0] + words[1][0] : (words[0] ?? "?").slice(0, 2)).toUpperCase();
}

/** A stable hue per author, so the same person's avatar keeps its color down the thread. */
function hue(name) {
  let h = 0;
  for (const ch of name ?? "") h = (h * 31 + ch.codePointAt(0)) % 360;
  return h;
}

/** One post: avatar, author, date, permalink, body. */
function postElement(post, index, base) {
  const item = document.createElement("li");
  item.className = "post";
  const depth = Math.min(post.depth ?? 0, MAX_INDENT_DEPTH);
  item.style.setProperty("--depth", String(depth));
  item.dataset.depth = String(post.depth ?? 0);

  const head = document.createElement("header");
  const avatar = document.createElement("span");
  avatar.className = "avatar";
  avatar.textContent = initials(post.author);
  avatar.style.setProperty("--hue", String(hue(post.author)));
  avatar.setAttribute("aria-hidden", "true");
  const author = document.createElement(post.author_url && safeUrl(post.author_url, base) ? "a" : "span");
  author.className = "author";
  author.textContent = post.author || "Anonymous";
  if (author.localName === "a") author.href = safeUrl(post.author_url, base);
  const when = timeElement(post.published, post.date, true);
  const meta = document.createElement("span");
  meta.className = "post-meta";
  if (when) meta.append(when);
  const link = post.permalink && safeUrl(post.permalink, base);
  if (link) {
    const anchor = document.createElement("a");
    anchor.href = link;
    anchor.className = "permalink";
    anchor.textContent = `#${index + 1}`;
    anchor.title = "Link to this post";
    meta.append(anchor);
  }
  head.append(avatar, author, meta);

  const body = document.createElement("div");
  body.className = "post-body";
  body.dir = "auto";
  if (post.html) body.append(safeFragment(post.html, base));
  else body.textContent = post.text ?? "";
  item.append(head, body);
  return item;
}

function renderPosts(list, posts, base) {
  list.replaceChildren(...posts.map((post, index) => postElement(post, index, base)));
}

function renderThread(state) {
  const { result } = state;
  const title = result.title || state.title || siteOf(state.url);
  $("thread-kicker").textContent = siteOf(state.url);
  $("thread-title").textContent = title;
  const authors = new Set(result.posts.map((post) => post.author).filter(Boolean));
  fillMeta($("thread-meta"), [
    `${result.posts.length} post${result.posts.length === 1 ? "" : "s"}`,
    authors.size ? `${authors.size} author${authors.size === 1 ? "" : "s"}` : null,
  ]);
  renderPosts($("posts"), result.posts, state.url);
  document.title = title;
  showView("thread");
}

// ---------------------------------------------------------------- states

function renderColophon(result) {
  const learned = result.method === "template+econ"
    ? `site template learned from ${result.pages_learned} page${result.pages_learned === 1 ? "" : "s"}`
    : "single-page extraction";
  $("colophon").textContent =
    `Extracted by Winnow · ${learned} · confidence ${Math.round(result.confidence * 100)} %`;
}

/** Show a tab state: an article, a thread, or the explanation that there is neither. */
function render(state) {
  current = state;
  const { result } = state;
  $("original").href = state.url;
  $("original").hidden = false;
  $("source-name").textContent = siteOf(state.url) || "Original page";
  renderColophon(result);
  if (result.kind === "thread" && result.posts.length) renderThread(state);
  else if (result.article) renderArticle(state);
  else return showFailure("No article here", "Winnow found neither an article nor a thread on this page.");
  performance.mark("winnow-reader-shown");
  return undefined;
}

function showFailure(title, text) {
  $("failure-title").textContent = title;
  $("failure-text").textContent = text;
  showView("failure");
}

/** Ask for the tab's result and show it; an offline server shows the start instructions. */
async function load() {
  if (loadingNow) return;
  loadingNow = true;
  try {
    const result = askBackground("reader:get", { tabId }).then((state) => {
      performance.mark("winnow-result");
      return state;
    });
    const { status } = await askBackground("status:get");
    if (status.state === "offline" && !current) showOffline(status);
    render(await result);
  } catch (err) {
    if (isUnreachable(err)) showOffline((await askBackground("status:get")).status);
    else showFailure("Winnow could not read this page", err.message);
  } finally {
    loadingNow = false;
  }
}

function showOffline(status) {
  $("offline-detail").textContent = `Looking for it at ${status.url}; trying again by itself.`;
  showView("offline");
}

// ---------------------------------------------------------------- preferences

/** Apply reader preferences to the page (data attributes drive the CSS). */
function applyPrefs(prefs) {
  root.dataset.theme = prefs.theme;
  root.dataset.font = prefs.font;
  root.dataset.width = prefs.width;
  root.style.setProperty("--size", `${prefs.size}px`);
  $("size").textContent = String(prefs.size);
  for (const group of document.querySelectorAll(".segmented")) {
    for (const button of group.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(button.dataset.value === prefs[group.dataset.pref]));
    }
  }
}

async function changePrefs(change) {
  const settings = await saveSettings({ reader: change });
  applyPrefs(settings.reader);
}

function wirePrefs() {
  for (const group of document.querySelectorAll(".segmented")) {
    group.addEventListener("click", (event) => {
      const value = event.target.closest("button")?.dataset.value;
      if (value) changePrefs({ [group.dataset.pref]: value });
    });
  }
  const step = (delta) => async () => {
    const { reader } = await loadSettings();
    changePrefs({ size: clampReaderSize(reader.size + delta * SIZE_STEP) });
  };
  $("smaller").addEventListener("click", step(-1));
  $("larger").addEventListener("click", step(1));
  // Another reader tab or the options page changed them.
  api.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes.settings?.newValue) applyPrefs(changes.settings.newValue.reader ?? {});
  });
}

// ---------------------------------------------------------------- actions

function toast(text) {
  $("toast").textContent = text;
  $("toast").hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { $("toast").hidden = true; }, 3000);
}

async function exportAs(format) {
  $("export-panel").hidePopover?.();
  try {
    const file = await askBackground("export:get", { tabId, format });
    downloadText(file);
    toast(`Saved ${file.filename}`);
  } catch (err) {
    toast(`Export failed: ${err.message}`);
  }
}

/** The thin bar at the top that shows how far down the page the reader is. */
function trackProgress() {
  const update = () => {
    const max = document.documentElement.scrollHeight - innerHeight;
    $("progress").style.transform = `scaleX(${max > 0 ? Math.min(1, scrollY / max) : 0})`;
  };
  addEventListener("scroll", update, { passive: true });
  addEventListener("resize", update);
}

function wireActions() {
  $("print").addEventListener("click", () => print());
  $("retry").addEventListener("click", () => {
    showView("loading");
    load();
  });
  for (const button of $("export-panel").querySelectorAll("button")) {
    button.addEventListener("click", () => exportAs(button.dataset.format));
  }
  onBroadcast((message) => {
    if (message.type === "result:changed" && message.tabId === tabId && current) load();
    if (message.type === "status:changed") {
      if (message.status.state === "online" && root.dataset.state === "offline") load();
      if (message.status.state === "offline" && root.dataset.state === "loading") showOffline(message.status);
    }
  });
}

async function start() {
  performance.mark("winnow-reader-start");
  wirePrefs();
  wireActions();
  trackProgress();
  if (!Number.isInteger(tabId)) return showFailure("No page to show", "Open the reader view from a page's Winnow button.");
  // Preferences and the result load at the same time; the result cannot render before the
  // preferences because rendering waits for the result's round trip to the server.
  const prefs = loadSettings().then((settings) => applyPrefs(settings.reader));
  await Promise.all([prefs, load()]);
  return undefined;
}

start();
