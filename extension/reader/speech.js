/**
 * Reading aloud with the browser's own speech synthesis (`speechSynthesis`, no server): one
 * utterance per block (paragraph, heading, list item, quote, caption, post), so the block
 * being read can be highlighted and followed, and pausing, resuming and changing the voice
 * or rate act at once. Nothing is sent anywhere but to the browser's speech engine.
 *
 * The engine is looked up at each use (`globalThis.speechSynthesis`), so a page without one
 * (or a test's stand-in) is handled the same way.
 */

/** The blocks read aloud, in reading order. */
const READ_BLOCKS = "h1, h2, h3, h4, h5, h6, p, li, blockquote, figcaption, dt, dd, pre, .post-body";

/** Lines of the reader's own header that are not read aloud (site name, byline line). */
const NOT_READ = ".kicker, .meta";

/** Rates offered, as multiples of the voice's normal speed. */
export const SPEECH_RATES = Object.freeze([0.75, 1, 1.25, 1.5, 1.75, 2]);

/** Height of the reader's sticky toolbar, px: a block above this line is out of view. */
const TOOLBAR_PX = 60;

/** Class of the block being read (reader.css highlights it). */
const SPEAKING_CLASS = "speaking";

const engine = () => globalThis.speechSynthesis ?? null;

/** Is there a speech engine at all? */
export function speechAvailable() {
  return Boolean(engine() && globalThis.SpeechSynthesisUtterance);
}

/** The engine's voices, best first: the document's language, then the default. */
export function voices(lang = "") {
  const all = engine()?.getVoices() ?? [];
  const prefix = lang.slice(0, 2).toLowerCase();
  const rank = (voice) => (voice.lang?.toLowerCase().startsWith(prefix) && prefix ? 0 : 1) + (voice.default ? 0 : 0.5);
  return [...all].sort((a, b) => rank(a) - rank(b));
}

/**
 * The text blocks of a container, leaves only: a list item holding paragraphs is read
 * through its paragraphs, not twice.
 * @param {Element} root
 */
export function readableBlocks(root) {
  const blocks = [...root.querySelectorAll(READ_BLOCKS)].filter((el) => !el.closest(`[hidden], ${NOT_READ}`));
  return blocks.filter((el) => !blocks.some((other) => other !== el && el.contains(other))
    && el.textContent.trim());
}

export class Narrator {
  /**
   * @param {object} options
   * @param {() => Element[]} options.blocks the blocks to read, in order
   * @param {(state: "idle"|"playing"|"paused") => void} options.onState
   */
  constructor({ blocks, onState }) {
    this.blocks = blocks;
    this.onState = onState;
    this.state = "idle";
    this.index = 0;
    this.voiceName = "";
    this.rate = 1;
    this.generation = 0;     // utterances of an earlier start are ignored when they end
    this.current = null;
  }

  setState(state) {
    this.state = state;
    this.onState(state);
  }

  /** Play from where it stopped (or the first block on screen), or resume after a pause. */
  play() {
    const synth = engine();
    if (!synth) return;
    if (this.state === "paused") {
      synth.resume();
      this.setState("playing");
      return;
    }
    if (this.state === "playing") return;
    const list = this.blocks();
    const start = this.index > 0 && this.index < list.length ? this.index : firstOnScreen(list);
    this.speakFrom(start);
  }

  pause() {
    if (this.state !== "playing") return;
    engine()?.pause();
    this.setState("paused");
  }

  toggle() {
    if (this.state === "playing") this.pause();
    else this.play();
  }

  /** Stop reading and forget the place. */
  stop() {
    this.generation += 1;
    engine()?.cancel();
    this.mark(null);
    this.index = 0;
    if (this.state !== "idle") this.setState("idle");
  }

  /** Change voice or rate; a block being read starts again with them. */
  configure({ voiceName = this.voiceName, rate = this.rate }) {
    if (voiceName === this.voiceName && rate === this.rate) return;
    this.voiceName = voiceName;
    this.rate = rate;
    if (this.state === "playing") this.speakFrom(this.index);
  }

  /** Read blocks from `index` on, one utterance each. */
  speakFrom(index) {
    const synth = engine();
    const list = this.blocks();
    this.generation += 1;
    const generation = this.generation;
    synth.cancel();
    if (index >= list.length) {
      this.stop();
      return;
    }
    this.index = index;
    const block = list[index];
    const utterance = new globalThis.SpeechSynthesisUtterance(block.textContent.replace(/\s+/g, " ").trim());
    const voice = (synth.getVoices() ?? []).find((v) => v.name === this.voiceName);
    if (voice) utterance.voice = voice;
    utterance.lang = voice?.lang ?? block.closest("[lang]")?.lang ?? document.documentElement.lang;
    utterance.rate = this.rate;
    utterance.onstart = () => {
      if (generation === this.generation) this.mark(block);
    };
    utterance.onend = () => {
      if (generation === this.generation) this.speakFrom(index + 1);
    };
    utterance.onerror = (event) => {
      if (generation !== this.generation || event?.error === "interrupted" || event?.error === "canceled") return;
      this.stop();
    };
    this.current = utterance;
    this.mark(block);
    synth.speak(utterance);
    if (this.state !== "playing") this.setState("playing");
  }

  /** Highlight the block being read and keep it in view. */
  mark(block) {
    for (const el of document.querySelectorAll(`.${SPEAKING_CLASS}`)) el.classList.remove(SPEAKING_CLASS);
    if (!block) return;
    block.classList.add(SPEAKING_CLASS);
    const box = block.getBoundingClientRect();
    if (box.top < TOOLBAR_PX || box.bottom > innerHeight) block.scrollIntoView({ block: "center", behavior: "smooth" });
  }
}

/** The index of the first block whose bottom is below the toolbar. */
function firstOnScreen(blocks) {
  const index = blocks.findIndex((block) => block.getBoundingClientRect().bottom > TOOLBAR_PX);
  return Math.max(0, index);
}
