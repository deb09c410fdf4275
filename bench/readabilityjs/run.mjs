// Reads JSON lines {"id", "path", "url"} on stdin; for each page prints one JSON line
// {"id", "ms", "title", "byline", "html", "error"} on stdout. `ms` times jsdom parsing plus
// Readability.parse() in this process, file reading (and gunzip of .gz pages) excluded.
//
// Bytes that are valid UTF-8 are declared UTF-8 (as an HTTP header would), since jsdom
// otherwise falls back to windows-1252 for pages without a <meta charset>; other pages are
// decoded by jsdom's own sniffing (BOM, <meta charset>, windows-1252).
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { gunzipSync } from "node:zlib";
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isUtf8(bytes) {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function parsePage(bytes, url, contentType) {
  const dom = new JSDOM(bytes, { url: url || undefined, contentType,
                                 virtualConsole: new VirtualConsole() });
  try {
    return new Readability(dom.window.document).parse();
  } finally {
    dom.window.close();
  }
}

function runOne(job) {
  const raw = readFileSync(job.path);
  const bytes = job.path.endsWith(".gz") ? gunzipSync(raw) : raw;
  const contentType = isUtf8(bytes) ? "text/html; charset=utf-8" : undefined;
  const start = performance.now();
  try {
    const article = parsePage(bytes, job.url, contentType);
    const ms = performance.now() - start;
    return { id: job.id, ms, title: article?.title ?? null, byline: article?.byline ?? null,
             html: article?.content ?? "", error: null };
  } catch (err) {
    return { id: job.id, ms: performance.now() - start, title: null, byline: null, html: "",
             error: String(err) };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim()) {
    process.stdout.write(JSON.stringify(runOne(JSON.parse(line))) + "\n");
  }
}
