// Reads JSON lines {"id", "path", "url"} on stdin; for each page prints one JSON line
// {"id", "ms", "title", "byline", "html", "error"} on stdout. `ms` times jsdom parsing plus
// Readability.parse() in this process, file reading excluded.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";

function parsePage(bytes, url) {
  const dom = new JSDOM(bytes, { url: url || undefined, virtualConsole: new VirtualConsole() });
  try {
    return new Readability(dom.window.document).parse();
  } finally {
    dom.window.close();
  }
}

function runOne(job) {
  const bytes = readFileSync(job.path);
  const start = performance.now();
  try {
    const article = parsePage(bytes, job.url);
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
