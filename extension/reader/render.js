/**
 * Safe insertion of the server's HTML. The server already sanitizes it (nh3), but the reader
 * view does not rely on that: the HTML is parsed into an inert document with DOMParser (no
 * scripts run, nothing loads), and only allow-listed elements and attributes are rebuilt in
 * the reader's document. Unknown elements are unwrapped (their text is kept), dangerous ones
 * dropped with their content, and URLs are resolved against the page and kept only when they
 * are http(s) (or data: images).
 */

/** Elements rebuilt as they are. */
const ALLOWED = new Set([
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "a", "strong", "b", "em", "i", "u", "s",
  "del", "ins", "mark", "small", "sub", "sup", "code", "pre", "kbd", "samp", "var", "blockquote",
  "q", "cite", "abbr", "time", "ul", "ol", "li", "dl", "dt", "dd", "figure", "figcaption", "img",
  "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col", "span",
  "div", "section", "article", "header", "footer", "aside", "details", "summary", "bdi", "bdo",
  "ruby", "rt", "rp", "wbr",
]);

/** Elements dropped with everything inside them. */
const DROPPED = new Set([
  "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input",
  "button", "select", "textarea", "option", "svg", "noscript", "template", "link", "meta",
  "base", "canvas", "audio", "video", "source", "track", "dialog", "annotation",
  "annotation-xml",
]);

const MATHML_NS = "http://www.w3.org/1998/Math/MathML";

/** MathML Core presentation elements rebuilt in the MathML namespace (the server's
 * MATHML_TAGS); other MathML elements are unwrapped. */
const MATHML = new Set([
  "math", "mi", "mo", "mn", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot",
  "mstyle", "merror", "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover",
  "munderover", "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "semantics",
  "menclose",
]);

/** Presentation attributes a formula keeps (the server's MATHML_ATTRIBUTES): none holds a
 * URL or script. */
const MATHML_ATTRIBUTES = [
  "display", "mathvariant", "displaystyle", "scriptlevel", "stretchy", "fence", "separator",
  "accent", "accentunder", "largeop", "movablelimits", "linethickness", "columnspan", "rowspan",
  "notation",
];

/** Attributes allowed on every element. */
const GLOBAL_ATTRIBUTES = ["dir", "lang", "title"];

/** Attributes allowed per element, besides the global ones. URL attributes are checked apart. */
const ELEMENT_ATTRIBUTES = {
  a: ["href"],
  img: ["src", "alt", "width", "height"],
  td: ["colspan", "rowspan", "headers"],
  th: ["colspan", "rowspan", "headers", "scope", "abbr"],
  col: ["span"],
  colgroup: ["span"],
  ol: ["start", "reversed", "type"],
  li: ["value"],
  time: ["datetime"],
  blockquote: ["cite"],
  q: ["cite"],
  abbr: ["title"],
  details: ["open"],
};

/** Attributes that hold a URL. */
const URL_ATTRIBUTES = new Set(["href", "src", "cite"]);

/** A `language-…` class on code (kept so code blocks can say their language). */
const LANGUAGE_CLASS = /^(?:language|lang)-[\w+#-]{1,30}$/;

/**
 * Resolve a URL against the page and keep it only when it is safe to follow or load.
 * @param {string} value
 * @param {string} base the page's URL
 * @param {boolean} image whether data: images are acceptable
 * @returns {string|null}
 */
export function safeUrl(value, base, image = false) {
  if (image && /^data:image\/(png|gif|jpe?g|webp|avif);/i.test(value.trim())) return value.trim();
  let url;
  try {
    url = new URL(value.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  if (!image && url.protocol === "mailto:") return url.href;
  return null;
}

/** Copy the allowed attributes of `source` onto `target`. */
function copyAttributes(source, target, tag, base) {
  const allowed = [...GLOBAL_ATTRIBUTES, ...(ELEMENT_ATTRIBUTES[tag] ?? [])];
  for (const name of allowed) {
    const value = source.getAttribute(name);
    if (value === null) continue;
    if (URL_ATTRIBUTES.has(name)) {
      const url = safeUrl(value, base, tag === "img");
      if (url) target.setAttribute(name, url);
    } else {
      target.setAttribute(name, value);
    }
  }
  if (tag === "code" || tag === "pre") {
    const language = [...source.classList].find((name) => LANGUAGE_CLASS.test(name));
    if (language) target.className = language;
  }
}

/** Finish elements that need more than their attributes: links, images, tables. */
function finish(el, tag) {
  if (tag === "a" && el.hasAttribute("href")) el.rel = "noopener noreferrer";
  if (tag === "img") {
    el.loading = "lazy";
    el.decoding = "async";
    el.addEventListener("error", () => el.remove(), { once: true });
  }
}

/**
 * Rebuild the children of `source` into `target`, in the reader's document.
 * @param {Node} source a node of the inert parsed document
 * @param {Node} target a node of the reader's document
 * @param {string} base
 */
function rebuild(source, target, base) {
  for (const child of source.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) {
      target.append(child.data);
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE) continue;
    const tag = child.localName;
    if (DROPPED.has(tag)) continue;
    if (child.namespaceURI === MATHML_NS) {
      target.append(rebuildFormula(child, base));
      continue;
    }
    if (!ALLOWED.has(tag)) {
      rebuild(child, target, base);   // unwrap: keep the text, lose the element
      continue;
    }
    const el = document.createElement(tag);
    copyAttributes(child, el, tag, base);
    finish(el, tag);
    rebuild(child, el, base);
    target.append(tag === "table" ? wrapTable(el) : el);
  }
}

/**
 * Rebuild a MathML element: allowed ones in the MathML namespace with their presentation
 * attributes, others unwrapped into a fragment.
 * @param {Element} source
 * @param {string} base
 * @returns {Node}
 */
function rebuildFormula(source, base) {
  const tag = source.localName;
  if (!MATHML.has(tag)) {
    const fragment = document.createDocumentFragment();
    rebuild(source, fragment, base);
    return fragment;
  }
  const el = document.createElementNS(MATHML_NS, tag);
  for (const name of MATHML_ATTRIBUTES) {
    const value = source.getAttribute(name);
    if (value !== null) el.setAttribute(name, value);
  }
  rebuild(source, el, base);
  return el;
}

/** Tables scroll sideways inside a wrapper instead of widening the page. */
function wrapTable(table) {
  const wrapper = document.createElement("div");
  wrapper.className = "table-wrap";
  wrapper.append(table);
  return wrapper;
}

/**
 * Parse HTML inertly and return a fragment of safe, rebuilt nodes.
 * @param {string} html
 * @param {string} base the page's URL, for relative links and images
 * @returns {DocumentFragment}
 */
export function safeFragment(html, base) {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  const fragment = document.createDocumentFragment();
  rebuild(parsed.body, fragment, base);
  return fragment;
}
