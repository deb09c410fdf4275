/**
 * The reader view: one extension page per opening (`reader.html?tab=<id>&at=<opened>`). It
 * asks the background for the source tab's extraction result and shows an article or a
 * thread (view.js) with the reader's typography, theme, reading aloud (speech.js), saving
 * (save.js) and keyboard control. What it shows is kept under its own address (keep.js), so
 * a reload, a closed source tab or a restarted worker shows the same article. While the
 * server is not running it says how to start it, and shows the page the moment it answers.
 */
import { api } from "../shared/api.js";
import { askBackground, onBroadcast } from "../shared/messages.js";
import { clampReaderSize, httpBase, loadSettings, saveSettings } from "../shared/settings.js";
import { siteOf } from "../shared/sites.js";
import { isUnreachable } from "../shared/status.js";
import { downloadText } from "../shared/download.js";
import { followPosition, keepState, keptState } from "./keep.js";
import { htmlFilename, savedHtml } from "./save.js";
import { Narrator, SPEECH_RATES, readableBlocks, speechAvailable, voices } from "./speech.js";
import { renderArticle, renderThread } from "./view.js";

const $ = (id) => document.getElementById(id);
const root = document.documentElement;
const tabId = Number(new URLSearchParams(location.search).get("tab"));

/** How much A− and A+ (and the - and + keys) change the font size, px. */
const SIZE_STEP = 1;
/** Themes in the order the T key steps through them. */
const THEMES = ["auto", "light", "sepia", "dark"];
/** While the offline notice shows, the server's /healthz is tried this often, ms. */
const OFFLINE_PROBE_MS = 1000;

/** The views one state of the page shows (their element ids); everything else is hidden. */
const VIEWS = ["loading", "offline", "failure", "article", "thread"];

let current = null;     // the state shown: {url, title, site, result}
let loadingNow = false;
let offlineProbe = null;

/** Show one view (and the colophon with content views). */
function showView(name) {
  for (const id of VIEWS) $(id).hidden = id !== name;
  $("colophon").hidden = name !== "article" && name !== "thread";
  root.dataset.state = name;
  if (name !== "offline") stopOfflineProbe();
}

// ---------------------------------------------------------------- states

function renderColophon(result) {
  const learned = result.method === "template+econ"
    ? `site template learned from ${result.pages_learned} page${result.pages_learned === 1 ? "" : "s"}`
    : "single-page extraction";
  $("colophon").textContent =
    `Extracted by Winnow · ${learned} · confidence ${Math.round(result.confidence * 100)} %`;
}

/**
 * Show a state: an article, a thread, or the explanation that there is neither. A state that
 * came from the background is kept under the reader's address.
 * @param {{url: string, title: string, site: string|null, result: object}} state
 * @param {{kept?: boolean}} [how] kept: the state came from this reader's own storage
 */
function render(state, { kept = false } = {}) {
  const samePage = current?.url === state.url;
  current = state;
  const { result } = state;
  if (!samePage) narrator.stop();
  $("original").href = state.url;
  $("original").hidden = false;
  $("source-name").textContent = siteOf(state.url) || "Original page";
  renderColophon(result);
  if (result.kind === "thread" && result.posts.length) {
    renderThread(state);
    showView("thread");
  } else if (result.article) {
    renderArticle(state);
    showView("article");
  } else {
    return showFailure("No article here", "Winnow found neither an article nor a thread on this page.");
  }
  performance.mark("winnow-reader-shown");
  if (!kept) keepState(state).catch(() => {});
  if (!samePage) followPosition(state.url).catch(() => {});
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
    else if (!current) showFailure("Winnow could not read this page", err.message);
    else toast(`Could not read the page again: ${err.message}`);
  } finally {
    loadingNow = false;
  }
}

function showOffline(status) {
  $("offline-detail").textContent = `Looking for it at ${status.url}; this page shows the article the moment it answers.`;
  showView("offline");
  startOfflineProbe(status);
}

/**
 * While the offline notice shows (and the page is seen), try the server's /healthz every
 * OFFLINE_PROBE_MS, and have the background connect the moment it answers instead of at
 * its next backoff attempt (up to 30 s away).
 */
function startOfflineProbe(status) {
  stopOfflineProbe();
  const url = `${httpBase(status.url)}healthz`;
  offlineProbe = setInterval(async () => {
    if (document.visibilityState !== "visible") return;
    try {
      await fetch(url, { cache: "no-store", credentials: "omit" });
    } catch {
      return;    // still not running
    }
    stopOfflineProbe();
    retryNow();
  }, OFFLINE_PROBE_MS);
}

function stopOfflineProbe() {
  clearInterval(offlineProbe);
  offlineProbe = null;
}

/** "Try again": connect now and read the page again. */
async function retryNow() {
  if (!current) showView("loading");
  await askBackground("reconnect").catch(() => {});
  await load();
}

/** The connection came back (or went): follow it. */
function followConnection(status) {
  const waiting = root.dataset.state === "offline" || (root.dataset.state === "failure" && !current);
  if (status.state === "online" && waiting) load();
  if (status.state === "offline" && root.dataset.state === "loading") showOffline(status);
}

// ---------------------------------------------------------------- preferences

/** Apply reader preferences to the page (data attributes drive the CSS). */
function applyPrefs(prefs) {
  for (const key of ["theme", "font", "width", "leading", "align"]) root.dataset[key] = prefs[key];
  root.style.setProperty("--size", `${prefs.size}px`);
  $("size").textContent = String(prefs.size);
  for (const group of document.querySelectorAll(".segmented")) {
    for (const button of group.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(button.dataset.value === prefs[group.dataset.pref]));
    }
  }
  narrator.configure({ voiceName: prefs.voice, rate: prefs.rate });
  if ($("rate").value !== String(prefs.rate)) $("rate").value = String(prefs.rate);
  if (prefs.voice && $("voice").value !== prefs.voice) $("voice").value = prefs.voice;
}

async function changePrefs(change) {
  const settings = await saveSettings({ reader: change });
  applyPrefs(settings.reader);
}

async function stepSize(delta) {
  const { reader } = await loadSettings();
  await changePrefs({ size: clampReaderSize(reader.size + delta * SIZE_STEP) });
}

async function nextTheme() {
  const { reader } = await loadSettings();
  await changePrefs({ theme: THEMES[(THEMES.indexOf(reader.theme) + 1) % THEMES.length] });
}

function wirePrefs() {
  for (const group of document.querySelectorAll(".segmented")) {
    group.addEventListener("click", (event) => {
      const value = event.target.closest("button")?.dataset.value;
      if (value) changePrefs({ [group.dataset.pref]: value });
    });
  }
  $("smaller").addEventListener("click", () => stepSize(-1));
  $("larger").addEventListener("click", () => stepSize(1));
  // Another reader tab or the options page changed them.
  api.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes.settings?.newValue) applyPrefs(changes.settings.newValue.reader ?? {});
  });
}

// ---------------------------------------------------------------- reading aloud

const narrator = new Narrator({
  blocks: () => readableBlocks($(root.dataset.state === "thread" ? "thread" : "article")),
  onState: (state) => {
    root.dataset.speech = state;
    $("speak").textContent = state === "playing" ? "Pause" : state === "paused" ? "Resume" : "Play";
    $("speak").setAttribute("aria-pressed", String(state === "playing"));
    $("speak-stop").disabled = state === "idle";
  },
});

/** Fill the voice list (voices arrive late in some browsers: `voiceschanged`). */
function fillVoices(chosen) {
  const list = voices(current?.result?.article?.lang ?? document.documentElement.lang);
  const options = list.map((voice) => new Option(`${voice.name} (${voice.lang})`, voice.name));
  $("voice").replaceChildren(new Option("Default voice", ""), ...options);
  $("voice").value = list.some((voice) => voice.name === chosen) ? chosen : "";
}

async function wireSpeech() {
  const available = speechAvailable();
  $("listen").hidden = !available;
  $("speech-none").hidden = available;
  $("rate").replaceChildren(...SPEECH_RATES.map((rate) => new Option(`${rate}×`, String(rate))));
  const { reader } = await loadSettings();
  $("rate").value = String(reader.rate);
  fillVoices(reader.voice);
  globalThis.speechSynthesis?.addEventListener?.("voiceschanged", async () => fillVoices((await loadSettings()).reader.voice));
  $("speak").addEventListener("click", () => narrator.toggle());
  $("speak-stop").addEventListener("click", () => narrator.stop());
  $("voice").addEventListener("change", () => changePrefs({ voice: $("voice").value }));
  $("rate").addEventListener("change", () => changePrefs({ rate: Number($("rate").value) }));
  addEventListener("pagehide", () => narrator.stop());
}

// ---------------------------------------------------------------- actions

function toast(text) {
  $("toast").textContent = text;
  $("toast").hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { $("toast").hidden = true; }, 3000);
}

/** Save the article as the reader shows it, as one self-contained HTML file. */
async function saveHtml() {
  if (!current || (root.dataset.state !== "article" && root.dataset.state !== "thread")) {
    throw new Error("there is no article to save");
  }
  const [css, { reader }] = await Promise.all([
    fetch(api.runtime.getURL("reader/reader.css")).then((response) => response.text()),
    loadSettings(),
  ]);
  const title = document.title;
  const content = $(root.dataset.state);
  const html = savedHtml({ content, title, url: current.url, css, prefs: reader });
  return { filename: htmlFilename(title), media_type: "text/html", content: html };
}

async function exportAs(format) {
  $("export-panel").hidePopover?.();
  try {
    const file = format === "html" ? await saveHtml() : await askBackground("export:get", { tabId, format });
    downloadText(file);
    toast(`Saved ${file.filename}`);
  } catch (err) {
    toast(`Export failed: ${err.message}`);
  }
}

/** "Original page": switch to the page's tab, or open it in a new tab (never in this one). */
async function showOriginal(event) {
  if (!current || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  try {
    await askBackground("tab:show", { tabId, url: current.url });
  } catch (err) {
    toast(`Could not open the page: ${err.message}`);
  }
}

/** Close the reader view's tab (the browser then shows the tab it was opened from). */
async function closeReader() {
  narrator.stop();
  const tab = await api.tabs.getCurrent();
  if (tab) await api.tabs.remove(tab.id);
}

/** Keys of the reader (none with Ctrl, Alt or Meta, and none while typing in a field). */
const KEYS = {
  "+": () => stepSize(1),
  "=": () => stepSize(1),
  "-": () => stepSize(-1),
  "_": () => stepSize(-1),
  "t": () => nextTheme(),
  "T": () => nextTheme(),
  "s": () => narrator.toggle(),
  "S": () => narrator.toggle(),
  "q": () => closeReader(),
  "Q": () => closeReader(),
  "?": () => $("keys-panel").togglePopover?.(),
  // Escape first closes an open panel (the browser does that), then stops reading aloud,
  // then closes the reader.
  "Escape": () => (narrator.state !== "idle" ? narrator.stop() : closeReader()),
};

function onKey(event) {
  if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
  if (event.target.closest?.("input, select, textarea, [contenteditable]")) return;
  if (event.key === "Escape" && document.querySelector(":popover-open")) return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault();
  Promise.resolve(action()).catch((err) => toast(err.message));
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
  $("retry").addEventListener("click", () => retryNow());
  $("offline-retry").addEventListener("click", () => retryNow());
  $("original").addEventListener("click", showOriginal);
  for (const button of $("export-panel").querySelectorAll("button")) {
    button.addEventListener("click", () => exportAs(button.dataset.format));
  }
  addEventListener("keydown", onKey);
  onBroadcast((message) => {
    if (message.type === "result:changed" && message.tabId === tabId && current) load();
    if (message.type === "status:changed") followConnection(message.status);
  });
  // The background's status is also in storage.session: a change is seen even when the
  // broadcast was missed (a worker that restarted).
  api.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && changes.status?.newValue) followConnection(changes.status.newValue);
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && root.dataset.state === "offline") retryNow();
  });
}

async function start() {
  performance.mark("winnow-reader-start");
  wirePrefs();
  wireActions();
  trackProgress();
  wireSpeech().catch(() => {});
  if (!Number.isInteger(tabId)) return showFailure("No page to show", "Open the reader view from a page's Winnow button.");
  // Preferences and the result load at the same time; the result cannot render before the
  // preferences because rendering waits for the result's round trip to the server.
  const prefs = loadSettings().then((settings) => applyPrefs(settings.reader));
  const kept = await keptState().catch(() => null);
  if (kept) {
    await prefs;
    render(kept, { kept: true });
    return undefined;
  }
  await Promise.all([prefs, load()]);
  return undefined;
}

start();
