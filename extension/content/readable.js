/**
 * Is this page worth a reader view? A cheap check that runs in the page and tells only the
 * background (which shows it on the toolbar badge): nothing of the page is sent anywhere, and
 * the page is never changed. A classic script, registered for the hosts the extension may
 * read (background/readable.js).
 *
 * - An article has a mass of prose in one container: paragraphs of at least
 *   MIN_PARAGRAPH_CHARS, scored as Readability's isProbablyReaderable scores them
 *   (√(length − MIN_PARAGRAPH_CHARS)), summed per parent element, so the teasers of a listing
 *   (one short paragraph per item, each in its own box) do not add up.
 * - A thread has repeated dated records: at least MIN_RECORDS siblings of one tag and class,
 *   each holding a date and some prose that is not link text. Records with a headline (a
 *   heading link of MIN_HEADLINE_WORDS words or more) to another page are a listing's teasers,
 *   not posts; a shorter heading link is a poster's name.
 * - A page found unreadable is checked again once its own scripts have built it (a few times,
 *   each after its DOM has been quiet for a moment, within WATCH_MS).
 */
(() => {
  if (globalThis.__winnowReadable) return;   // injected twice into the same page
  globalThis.__winnowReadable = true;

  const api = globalThis.browser ?? globalThis.chrome;

  /** Shorter paragraphs do not count as prose (Readability's minContentLength). */
  const MIN_PARAGRAPH_CHARS = 140;
  /** Prose score one container needs for the page to be an article (Readability's minScore). */
  const MIN_PROSE_SCORE = 20;
  /** A paragraph with more link text than this share is navigation, not prose. */
  const MAX_LINK_DENSITY = 0.5;
  /** Class and id words of boxes that are not the article (Readability's unlikely candidates). */
  const UNLIKELY = /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
  /** …unless they also say they hold content. */
  const MAYBE = /and|article|body|column|content|main|shadow/i;
  /** A heading link of fewer words names a poster (a forum's author heading), not a teaser. */
  const MIN_HEADLINE_WORDS = 3;
  /** A thread needs at least this many dated records. */
  const MIN_RECORDS = 3;
  /** Characters of text outside links a record needs to count as a post. */
  const MIN_RECORD_PROSE = 60;
  /** Date markers are looked for in text nodes shorter than this. */
  const MAX_DATE_TEXT = 120;
  /** At most this many date markers are followed up (keeps the check cheap on huge pages). */
  const MAX_MARKERS = 400;
  /** How far up from a date marker its record may be. */
  const MAX_RECORD_DEPTH = 10;

  const MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
  /** Dates as pages write them: ISO, numeric, with a month name, or relative. */
  const DATE = new RegExp(
    `\\b(?:\\d{4}-\\d\\d-\\d\\d|\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}|${MONTH} \\d{1,2},? \\d{4}|` +
    `\\d{1,2} ${MONTH},? \\d{4}|\\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago|` +
    "yesterday|today)\\b", "i");

  /** The text of an element outside its links, and inside them. */
  function textShares(el) {
    const total = el.textContent.replace(/\s+/g, " ").trim().length;
    let linked = 0;
    for (const link of el.querySelectorAll("a")) linked += link.textContent.replace(/\s+/g, " ").trim().length;
    return { total, prose: Math.max(0, total - linked), linked };
  }

  function shown(el) {
    if (el.closest("[hidden], [aria-hidden='true']")) return false;
    return typeof el.checkVisibility === "function" ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function unlikely(el) {
    const words = `${el.className?.baseVal ?? el.className ?? ""} ${el.id ?? ""}`;
    return UNLIKELY.test(words) && !MAYBE.test(words);
  }

  /** The container with the highest prose score, and its score: the article test. */
  function proseMass(teasers) {
    const nodes = new Set(document.querySelectorAll("p, pre, article"));
    for (const br of document.querySelectorAll("div > br")) nodes.add(br.parentElement);
    const perParent = new Map();
    let best = { score: 0, container: null };
    for (const node of nodes) {
      const length = node.textContent.trim().length;
      if (length < MIN_PARAGRAPH_CHARS || node.matches("li p") || unlikely(node)) continue;
      if (teasers.some((teaser) => teaser.contains(node))) continue;
      const { total, linked } = textShares(node);
      if (!total || linked / total > MAX_LINK_DENSITY || !shown(node)) continue;
      const parent = node.parentElement ?? node;
      const score = (perParent.get(parent) ?? 0) + Math.sqrt(length - MIN_PARAGRAPH_CHARS);
      perParent.set(parent, score);
      if (score > best.score) best = { score, container: parent };
    }
    return best;
  }

  /** Elements that show a date: <time>, and parents of short text nodes that read as one. */
  function dateMarkers() {
    const markers = new Set(document.querySelectorAll("time"));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && markers.size < MAX_MARKERS; node = walker.nextNode()) {
      const text = node.data;
      if (text.length < MAX_DATE_TEXT && /\d|day/i.test(text) && DATE.test(text)) markers.add(node.parentElement);
    }
    return [...markers].filter(Boolean).slice(0, MAX_MARKERS);
  }

  /** Classes that alternate between records of one kind (bg1/bg2, odd/even). */
  const ALTERNATING = /^(?:odd|even|alt|first|last|new|unread|read)$/i;

  const signatures = new WeakMap();

  /** A record's tag and class, digits and alternating classes left out (computed once each). */
  function signature(el) {
    let sig = signatures.get(el);
    if (sig === undefined) {
      sig = `${el.localName}.${[...el.classList]
        .map((name) => name.replace(/\d+/g, "")).filter((name) => name && !ALTERNATING.test(name))
        .sort().join(".")}`;
      signatures.set(el, sig);
    }
    return sig;
  }

  /** The nearest ancestor of `el` that repeats (MIN_RECORDS siblings of its tag and class). */
  function recordOf(el) {
    let node = el;
    for (let depth = 0; node && node.parentElement && node !== document.body && depth < MAX_RECORD_DEPTH; depth++) {
      const sig = signature(node);
      let same = 0;
      for (const sibling of node.parentElement.children) {
        if (signature(sibling) === sig && ++same >= MIN_RECORDS) return node;
      }
      node = node.parentElement;
    }
    return null;
  }

  /** A listing's item: a headline (a heading link of some words) to another page. */
  function isTeaser(record) {
    const here = location.href.split("#")[0];
    return [...record.querySelectorAll("h1 a[href], h2 a[href], h3 a[href], h4 a[href]")].some((link) => {
      const href = link.getAttribute("href") ?? "";
      if (href.includes("#") || link.href.split("#")[0] === here) return false;
      return link.textContent.trim().split(/\s+/).length >= MIN_HEADLINE_WORDS;
    });
  }

  /** Dated records grouped by parent and signature; returns the posts and the teasers. */
  function datedRecords() {
    const groups = new Map();
    const teasers = [];
    for (const marker of dateMarkers()) {
      const record = recordOf(marker);
      if (!record) continue;
      const key = record.parentElement;
      const sig = signature(record);
      if (!groups.has(key)) groups.set(key, new Map());
      const bySig = groups.get(key);
      if (!bySig.has(sig)) bySig.set(sig, new Set());
      bySig.get(sig).add(record);
    }
    let posts = [];
    for (const bySig of groups.values()) {
      for (const records of bySig.values()) {
        const items = [...records];
        const listing = items.filter(isTeaser);
        teasers.push(...listing);
        const prose = items.filter((item) => !listing.includes(item) && textShares(item).prose >= MIN_RECORD_PROSE);
        if (prose.length >= MIN_RECORDS && prose.length > posts.length) posts = prose;
      }
    }
    return { posts, teasers };
  }

  /**
   * "article", "thread", or null. A page with both (an article under which people comment)
   * is an article when its prose container lies outside the posts.
   */
  function readableKind() {
    if (!document.body) return null;
    const { posts, teasers } = datedRecords();
    const prose = proseMass(teasers);
    const article = prose.score > MIN_PROSE_SCORE;
    if (posts.length >= MIN_RECORDS) {
      const inPost = article && posts.some((post) => post.contains(prose.container));
      return article && !inPost ? "article" : "thread";
    }
    return article ? "article" : null;
  }

  /** The check waits for an idle moment, at most this long (ms), so it never competes with the
   * page's own start or with reading the page for the reader view. */
  const IDLE_TIMEOUT_MS = 2000;

  /** A page found unreadable is checked again when its scripts have built it (forums such as
   * Discourse render their posts after load): after its DOM has been quiet for QUIET_MS,
   * within WATCH_MS of the first check, at most MAX_RECHECKS times. */
  const QUIET_MS = 500;
  const WATCH_MS = 15000;
  const MAX_RECHECKS = 3;

  /** Check the page; tell the background the verdict when it is one or `always`. */
  function report(always) {
    const started = performance.now();
    const kind = readableKind();
    if (kind !== null || always) {
      api.runtime.sendMessage({ type: "content:readable", kind, ms: performance.now() - started }).catch(() => {});
    }
    return kind;
  }

  function check() {
    if (report(true) === null) watchForContent();
  }

  /** Observe the page (a change only resets a timer) and check it again once it settles. */
  function watchForContent() {
    if (typeof MutationObserver !== "function") return;
    let timer = 0;
    let rechecks = 0;
    const observer = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        rechecks += 1;
        if (report(false) !== null || rechecks >= MAX_RECHECKS) observer.disconnect();
      }, QUIET_MS);
    });
    observer.observe(document.documentElement, { childList: true, subtree: true });
    setTimeout(() => {
      observer.disconnect();
      clearTimeout(timer);
    }, WATCH_MS);
  }

  if (typeof requestIdleCallback === "function") requestIdleCallback(check, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(check, 0);
})();