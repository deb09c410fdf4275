/**
 * "Save as HTML": the article (or thread) as the reader shows it, in one self-contained file
 * that opens anywhere: the reader's own stylesheet inlined, no script, a Content Security
 * Policy that lets nothing run or load but the article's images (referenced by their
 * http(s) address, not embedded), and a link back to the original page.
 *
 * What is saved was already rebuilt through render.js's allow-list; it is scrubbed once more
 * here (scripts, handlers, non-http links and images, the reader's own UI marks), because a
 * saved file outlives the page that made it.
 */

/** The saved file's policy: no scripts, no frames, no fetches; styles inline, images from the web. */
const SAVED_CSP = "default-src 'none'; img-src http: https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** Elements never saved, whatever their origin. */
const NEVER_SAVED = "script, style, iframe, frame, object, embed, form, input, button, select, textarea, link, meta, base, template, [hidden]";

/** Attributes the saved copy keeps; everything else (handlers included) goes. */
const KEPT_ATTRIBUTES = new Set([
  "href", "src", "alt", "width", "height", "title", "lang", "dir", "class", "datetime", "cite",
  "colspan", "rowspan", "headers", "scope", "abbr", "start", "reversed", "type", "value", "span",
  "open", "display", "mathvariant", "style", "data-depth",
]);

/** Classes the reader adds while showing (the paragraph being read aloud). */
const UI_CLASSES = ["speaking"];

/** The longest file name stem. */
const MAX_NAME = 80;

/**
 * A file name from the title: lower-case words joined by hyphens, `.html`.
 * @param {string} title
 */
export function htmlFilename(title) {
  const stem = (title || "article").normalize("NFKD").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, MAX_NAME).replace(/-+$/, "");
  return `${stem || "article"}.html`;
}

/** Keep a URL only when it is http(s) (and, for images, a data: image). */
function keptUrl(value, image) {
  const text = (value ?? "").trim();
  if (image && /^data:image\/(png|gif|jpe?g|webp|avif);/i.test(text)) return text;
  return /^https?:\/\//i.test(text) || (!image && /^mailto:/i.test(text)) ? text : null;
}

/** Scrub a copy in place: dropped elements, unknown attributes, unsafe URLs, UI marks. */
function scrub(root) {
  for (const el of root.querySelectorAll(NEVER_SAVED)) el.remove();
  for (const el of [root, ...root.querySelectorAll("*")]) {
    for (const { name } of [...el.attributes]) {
      if (!KEPT_ATTRIBUTES.has(name)) el.removeAttribute(name);
    }
    for (const name of ["href", "src", "cite"]) {
      if (!el.hasAttribute(name)) continue;
      const url = keptUrl(el.getAttribute(name), name === "src");
      if (url) el.setAttribute(name, url);
      else el.removeAttribute(name);
    }
    if (el.hasAttribute("style") && !/^--depth:\s*\d+;?$/.test(el.getAttribute("style"))) el.removeAttribute("style");
    el.classList.remove(...UI_CLASSES);
    if (el.getAttribute("class") === "") el.removeAttribute("class");
    if (el.localName === "a" && el.hasAttribute("href")) el.setAttribute("rel", "noopener noreferrer");
  }
  return root;
}

/**
 * The saved file's text.
 * @param {object} page
 * @param {Element} page.content the reader's shown #article or #thread
 * @param {string} page.title
 * @param {string} page.url the original page
 * @param {string} page.css the reader's stylesheet
 * @param {{theme: string, font: string, width: string, leading: string, align: string}} page.prefs
 */
export function savedHtml({ content, title, url, css, prefs }) {
  const doc = document.implementation.createHTMLDocument("");
  const html = doc.documentElement;
  html.lang = content.lang || document.documentElement.lang || "";
  if (content.dir && content.dir !== "auto") html.dir = content.dir;
  for (const key of ["theme", "font", "width", "leading", "align"]) {
    if (prefs[key]) html.dataset[key] = prefs[key];
  }
  html.dataset.state = "saved";
  doc.head.replaceChildren();
  const meta = (attrs) => {
    const el = doc.createElement("meta");
    for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
    doc.head.append(el);
  };
  meta({ charset: "utf-8" });
  meta({ "http-equiv": "Content-Security-Policy", content: SAVED_CSP });
  meta({ name: "referrer", content: "no-referrer" });
  meta({ name: "viewport", content: "width=device-width, initial-scale=1" });
  const titleEl = doc.createElement("title");
  titleEl.textContent = title;
  const canonical = doc.createElement("link");
  canonical.rel = "canonical";
  if (keptUrl(url, false)) canonical.href = url;
  const style = doc.createElement("style");
  style.textContent = css;
  doc.head.append(titleEl, ...(canonical.href ? [canonical] : []), style);

  const main = doc.createElement("main");
  main.id = "main";
  const copy = scrub(doc.importNode(content, true));
  copy.removeAttribute("hidden");
  main.append(copy);
  const source = doc.createElement("footer");
  source.className = "colophon";
  source.append("Saved from ");
  const link = doc.createElement("a");
  link.textContent = url;
  if (keptUrl(url, false)) {
    link.href = url;
    link.rel = "noopener noreferrer";
  }
  source.append(link, ` on ${new Date().toISOString().slice(0, 10)} with Winnow.`);
  main.append(source);
  doc.body.replaceChildren(main);
  return `<!doctype html>\n${html.outerHTML}\n`;
}
