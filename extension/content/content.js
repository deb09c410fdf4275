/**
 * Winnow's content script (a classic script: executeScript and registered content scripts
 * cannot be ES modules). It never changes the live page to extract it:
 *
 * - serialize: clone the document, stamp every element of the clone with `data-wn="<n>"` in
 *   document order, mark what the browser does not show with `data-wn-hidden`, and keep the
 *   live elements in the same order, so the server's ids map straight back to live nodes;
 * - highlight: add two classes to the live nodes of the noise and content ids, plus a small
 *   legend; unhighlight removes every class, attribute and element it added;
 * - single-page apps: when the URL changes by history navigation, send the page again.
 *
 * It answers exactly the BACKGROUND_TO_CONTENT types of shared/messages.js and sends
 * CONTENT_TO_BACKGROUND types.
 */
(() => {
  if (globalThis.__winnowContent) return;   // injected twice into the same page
  globalThis.__winnowContent = true;

  const api = globalThis.browser ?? globalThis.chrome;

  /** Classes the highlighter adds (styled by content/highlight.css, inserted by the background). */
  const NOISE_CLASS = "winnow-noise";
  const CONTENT_CLASS = "winnow-content";

  /** After a history navigation, the page counts as settled after this long without DOM changes… */
  const SETTLE_QUIET_MS = 400;
  /** …or after this long in any case. */
  const SETTLE_MAX_MS = 3000;
  /** Browsers without the Navigation API get the URL checked this often. */
  const URL_POLL_MS = 1000;

  /** Scripts other than JSON-LD (which the server reads for metadata) are dropped from the copy. */
  const DROPPED_IN_COPY = 'script:not([type="application/ld+json"]), style';

  const state = {
    // This script's instance: serial numbers restart when the page reloads, so a result is
    // matched to the page by instance and serial together.
    instance: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
    serial: 0,          // number of the last serialization; results carry it back
    elements: [],       // live elements of the last serialization, index = data-wn id
    marked: null,       // Map(element → had a class attribute) while highlighted
    legend: null,       // the legend's host element while highlighted
  };

  /**
   * Is this live element not shown? display:none (itself or an ancestor), visibility:hidden
   * and content-visibility:hidden count; opacity does not, because many sites fade content
   * in on scroll and it would be lost. `display: contents` has no box of its own but shows
   * its children, so it counts as shown.
   * @param {Element} el
   */
  function isHidden(el) {
    if (typeof el.checkVisibility === "function") {
      if (el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) return false;
      return getComputedStyle(el).display !== "contents";
    }
    const style = getComputedStyle(el);
    if (style.display === "contents") return false;
    return style.display === "none" || style.visibility === "hidden" || el.getClientRects().length === 0;
  }

  /**
   * Give the copy of a lazily loaded image the address the browser actually shows, when its
   * src is missing or a data: placeholder.
   */
  function fixImage(live, copy) {
    const shown = live.currentSrc;
    const src = copy.getAttribute("src") ?? "";
    if (shown && /^https?:/.test(shown) && (!src || src.startsWith("data:"))) copy.setAttribute("src", shown);
  }

  /**
   * Clone the document and stamp the clone; the live page is only read. With `keep` (the
   * default) this serialization becomes the one the server's ids refer to; without, it is a
   * copy for an export and the last ids stay valid.
   * @returns {{instance: string, serial: number, url: string, title: string, html: string, elements: number, ms: number}}
   */
  function serialize({ keep = true } = {}) {
    const started = performance.now();
    const root = document.documentElement;
    const copy = root.cloneNode(true);
    const live = [root, ...root.getElementsByTagName("*")];
    const copies = [copy, ...copy.getElementsByTagName("*")];
    const body = document.body;
    for (let i = 0; i < copies.length; i++) {
      copies[i].setAttribute("data-wn", String(i));
      if (body && body.contains(live[i]) && isHidden(live[i])) copies[i].setAttribute("data-wn-hidden", "");
      if (copies[i].localName === "img") fixImage(live[i], copies[i]);
    }
    for (const dropped of copy.querySelectorAll(DROPPED_IN_COPY)) dropped.remove();
    if (keep) {
      state.serial += 1;
      state.elements = live;
    }
    const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>\n` : "";
    return {
      instance: state.instance,
      serial: state.serial,
      url: location.href,
      title: document.title,
      html: doctype + copy.outerHTML,
      elements: live.length,
      ms: performance.now() - started,
    };
  }

  /**
   * Add `className` to the live elements of `ids`, remembering whether each had a class
   * attribute before, so unhighlighting restores the markup exactly.
   */
  function mark(ids, className) {
    let count = 0;
    for (const id of ids) {
      const el = state.elements[id];
      if (!el || !el.isConnected) continue;
      if (!state.marked.has(el)) state.marked.set(el, el.hasAttribute("class"));
      el.classList.add(className);
      count += 1;
    }
    return count;
  }

  /** Outline the ids of the serialization `serial` and show the legend. */
  function highlight({ serial, noise_ids: noiseIds, content_ids: contentIds }) {
    if (serial !== state.serial) {
      throw Object.assign(new Error("The page changed since it was read."), { code: "stale" });
    }
    unhighlight();
    state.marked = new Map();
    const counts = { noise: mark(noiseIds, NOISE_CLASS), content: mark(contentIds, CONTENT_CLASS) };
    state.legend = makeLegend(counts);
    document.documentElement.append(state.legend);
    return counts;
  }

  /** Is the page highlighted now? */
  function highlighted() {
    return state.marked !== null;
  }

  /** Remove every class, attribute and element highlighting added. */
  function unhighlight() {
    if (!highlighted()) return { removed: 0 };
    const removed = state.marked.size;
    for (const [el, hadClass] of state.marked) {
      el.classList.remove(NOISE_CLASS, CONTENT_CLASS);
      if (!hadClass && el.getAttribute("class") === "") el.removeAttribute("class");
    }
    state.legend?.remove();
    state.marked = null;
    state.legend = null;
    return { removed };
  }

  /**
   * The legend: a closed shadow root, so page styles cannot reach in and ours cannot leak out.
   * @param {{noise: number, content: number}} counts
   */
  function makeLegend(counts) {
    const host = document.createElement("winnow-legend");
    const shadow = host.attachShadow({ mode: "closed" });
    const style = document.createElement("style");
    style.textContent = LEGEND_CSS;
    const brand = document.createElement("strong");
    brand.textContent = "Winnow";
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Hide";
    close.title = "Turn highlighting off";
    close.addEventListener("click", () => {
      unhighlight();
      api.runtime.sendMessage({ type: "content:unhighlight" }).catch(() => {});
    });
    const box = document.createElement("div");
    box.className = "box";
    box.setAttribute("role", "status");
    box.append(
      brand,
      legendItem("content", `Content (${counts.content})`),
      legendItem("noise", `Template noise (${counts.noise})`),
      close,
    );
    shadow.append(style, box);
    return host;
  }

  function legendItem(kind, label) {
    const item = document.createElement("span");
    item.className = `item ${kind}`;
    const swatch = document.createElement("i");
    item.append(swatch, label);
    return item;
  }

  const LEGEND_CSS = `
    :host { all: initial; }
    .box { position: fixed; z-index: 2147483647; right: 16px; bottom: 16px; display: flex;
      gap: 14px; align-items: center; padding: 8px 10px 8px 14px; border-radius: 10px;
      background: #1f2328; color: #f6f8fa; font: 13px/1.3 system-ui, sans-serif;
      box-shadow: 0 6px 24px rgba(0,0,0,.28); }
    strong { font-weight: 650; letter-spacing: .01em; }
    .item { display: inline-flex; align-items: center; gap: 6px; }
    i { display: inline-block; width: 14px; height: 14px; border-radius: 3px; }
    .content i { border: 3px solid #2f9e44; background: rgba(47,158,68,.18); }
    .noise i { border: 2px dashed #f76707; background: repeating-linear-gradient(45deg,
      rgba(247,103,7,.45) 0 3px, transparent 3px 6px); }
    button { all: unset; cursor: pointer; padding: 3px 9px; border-radius: 6px;
      background: #343a40; color: #f6f8fa; }
    button:hover, button:focus-visible { background: #495057; outline: 2px solid #74c0fc; }
  `;

  /** Resolve once the DOM has been quiet for SETTLE_QUIET_MS, or after SETTLE_MAX_MS. */
  function settled() {
    return new Promise((resolve) => {
      let quiet;
      const observer = new MutationObserver(() => {
        clearTimeout(quiet);
        quiet = setTimeout(done, SETTLE_QUIET_MS);
      });
      const limit = setTimeout(done, SETTLE_MAX_MS);
      function done() {
        observer.disconnect();
        clearTimeout(quiet);
        clearTimeout(limit);
        resolve();
      }
      observer.observe(document, { childList: true, subtree: true, characterData: true });
      quiet = setTimeout(done, SETTLE_QUIET_MS);
    });
  }

  /**
   * Ask the background whether to send this page (it decides collection: site lists, pause,
   * private windows), and send it if so.
   * @param {"load"|"navigation"} reason
   * @param {boolean} wasHighlighted whether the background should highlight the page it gets
   */
  async function offerPage(reason, wasHighlighted = highlighted()) {
    const reply = await api.runtime.sendMessage({ type: "content:hello", reason, url: location.href });
    if (!reply?.ok || !reply.send) return;
    await api.runtime.sendMessage({ type: "content:page", reason, highlighted: wasHighlighted, ...serialize() });
  }

  /** The URL without its fragment: a hash change alone is not a new page. */
  function pageUrl() {
    return location.href.split("#")[0];
  }

  /** Call offerPage after each history navigation that changes the page's URL. */
  function watchNavigation() {
    let last = pageUrl();
    const check = async () => {
      if (pageUrl() === last) return;
      last = pageUrl();
      // The old page's marks go before it is read again; its new content gets them back.
      const wasHighlighted = highlighted();
      unhighlight();
      await settled();
      offerPage("navigation", wasHighlighted).catch(() => {});
    };
    if (globalThis.navigation?.addEventListener) {
      globalThis.navigation.addEventListener("navigatesuccess", check);
    } else {
      addEventListener("popstate", check);
      setInterval(check, URL_POLL_MS);
    }
  }

  /** Handlers for BACKGROUND_TO_CONTENT, by type. */
  const handlers = {
    "wn:ping": () => ({ instance: state.instance, serial: state.serial, highlighted: highlighted(), url: location.href }),
    "wn:serialize": (message) => serialize({ keep: message.keep !== false }),
    "wn:highlight": (message) => highlight(message),
    "wn:unhighlight": () => unhighlight(),
  };

  api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    const handler = handlers[message?.type];
    const fromUs = sender.id === api.runtime.id && !sender.tab;
    if (!handler || !fromUs) return false;
    Promise.resolve()
      .then(() => handler(message))
      .then((reply) => sendResponse({ ok: true, ...reply }))
      .catch((err) => sendResponse({ ok: false, error: { code: err.code ?? "internal", message: String(err.message ?? err) } }));
    return true;
  });

  watchNavigation();
  offerPage("load").catch(() => {});
})();
