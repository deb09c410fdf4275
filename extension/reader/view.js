/**
 * The reader's two views of a result: an article (title, byline, date, lead image, body,
 * comments) or a thread (its posts, indented by reply depth). They fill the reader page's
 * elements; reader.js decides which one shows.
 */
import { siteOf } from "../shared/sites.js";
import { safeFragment, safeUrl } from "./render.js";

const $ = (id) => document.getElementById(id);

/** Reading speed for the "min read" estimate, words per minute. */
const WORDS_PER_MINUTE = 230;
/** Posts deeper than this are indented no further (keeps narrow screens readable). */
const MAX_INDENT_DEPTH = 6;

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

export function renderArticle(state) {
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
  if (post.signature) {
    const signature = document.createElement("div");
    signature.className = "signature";
    signature.dir = "auto";
    signature.textContent = post.signature;
    item.append(signature);
  }
  return item;
}

function renderPosts(list, posts, base) {
  list.replaceChildren(...posts.map((post, index) => postElement(post, index, base)));
}

export function renderThread(state) {
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
  renderNextPage($("posts"), result.next_page, state.url);
  document.title = title;
}

/** A link to the thread's next page under its posts, when the thread has more pages. */
function renderNextPage(list, nextPage, base) {
  list.parentElement.querySelector(".next-page")?.remove();
  const url = nextPage && safeUrl(nextPage, base);
  if (!url) return;
  const next = document.createElement("p");
  next.className = "next-page";
  const link = document.createElement("a");
  link.href = url;
  link.rel = "next";
  link.textContent = "Next page of this thread →";
  next.append(link);
  list.after(next);
}
