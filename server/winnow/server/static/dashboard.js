// Winnow dashboard: reads the server's JSON API and draws plain SVG charts; its one change is
// "Forget this site" (POST, JSON). Every value from the API goes into the page as text
// (textContent), never as markup.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const PALETTE = ["#0969da", "#1a7f37", "#bf3989", "#9a6700", "#8250df", "#cf222e", "#1b7c83",
  "#6e7781"];
const CHART = { width: 560, height: 220, left: 40, right: 12, top: 12, bottom: 28 };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

async function getJSON(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function postJSON(path, body) {
  const response = await fetch(path, { method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Accept: "application/json" } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "—";
}

function cell(value, cls) {
  return el("td", cls ? { class: cls } : {}, value);
}

function axes(svg, maxY, labels) {
  const { width, height, left, right, top, bottom } = CHART;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  svg.append(svgEl("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right,
    y2: height - bottom }));
  svg.append(svgEl("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }));
  const y = (v) => height - bottom - (v / Math.max(maxY, 1)) * (height - top - bottom);
  for (const tick of [0, Math.round(maxY / 2), maxY]) {
    svg.append(svgEl("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end" }, tick));
  }
  const step = (width - left - right) / Math.max(labels.length, 1);
  const every = Math.ceil(labels.length / 8);
  labels.forEach((label, i) => {
    if (i % every === 0) {
      svg.append(svgEl("text", { x: left + step * (i + 0.5), y: height - 8,
        "text-anchor": "middle" }, label));
    }
  });
  return { y, step };
}

function drawPerDay(perDay) {
  const svg = document.getElementById("per-day");
  const days = [...new Set(perDay.map((r) => r.day))].sort();
  const sites = [...new Set(perDay.map((r) => r.site))].sort();
  const count = new Map(perDay.map((r) => [`${r.site} ${r.day}`, r.pages]));
  const maxY = Math.max(1, ...perDay.map((r) => r.pages));
  const { y, step } = axes(svg, maxY, days.map((d) => d.slice(5)));
  if (!days.length) {
    svg.append(svgEl("text", { x: CHART.width / 2, y: CHART.height / 2,
      "text-anchor": "middle" }, "no pages stored yet"));
    return;
  }
  sites.forEach((site, s) => {
    const color = PALETTE[s % PALETTE.length];
    const points = days.map((day, i) => [CHART.left + step * (i + 0.5),
      y(count.get(`${site} ${day}`) || 0)]);
    svg.append(svgEl("polyline", { points: points.map((p) => p.join(",")).join(" "),
      fill: "none", stroke: color, "stroke-width": 2 }));
    for (const [cx, cy] of points) svg.append(svgEl("circle", { cx, cy, r: 3, fill: color }));
  });
  const legend = svgEl("g", { class: "legend" });
  sites.slice(0, 8).forEach((site, s) => {
    legend.append(svgEl("rect", { x: CHART.left + 8, y: CHART.top + s * 14, width: 10,
      height: 10, fill: PALETTE[s % PALETTE.length] }));
    legend.append(svgEl("text", { x: CHART.left + 22, y: CHART.top + 9 + s * 14 }, site));
  });
  svg.append(legend);
}

function drawClusterSizes(site, clusters) {
  document.getElementById("chart-site").textContent = site;
  const svg = document.getElementById("cluster-sizes");
  const shown = clusters.slice(0, 20);
  const maxY = Math.max(1, ...shown.map((c) => c.pages));
  const { y, step } = axes(svg, maxY, shown.map((c) => `#${c.id}`));
  shown.forEach((c, i) => {
    const top = y(c.pages);
    svg.append(svgEl("rect", { class: "bar", x: CHART.left + step * i + step * 0.15,
      y: top, width: step * 0.7, height: CHART.height - CHART.bottom - top,
      opacity: c.active ? 1 : 0.45 }));
    svg.append(svgEl("text", { x: CHART.left + step * (i + 0.5), y: top - 3,
      "text-anchor": "middle" }, c.pages));
  });
}

// The site and cluster last asked for: a slower answer to an earlier click is dropped.
let wanted = { site: null, cluster: null };

async function showTemplate(site, cluster) {
  wanted = { site, cluster };
  const data = await getJSON(`/api/sites/${encodeURIComponent(site)}/template?cluster=${cluster}`);
  if (wanted.site !== site || wanted.cluster !== cluster) return;
  const box = document.getElementById("template");
  box.hidden = false;
  const statics = data.sections.filter((s) => s.static).length;
  document.getElementById("template-title").textContent =
    `Template of cluster #${data.id}: ${statics} static and ` +
    `${data.sections.length - statics} varying sections, learned from ${data.pages} pages`;
  const list = document.getElementById("sections");
  list.replaceChildren();
  if (!data.sections.length) {
    list.append(el("li", {}, "No layout pattern yet: a cluster needs two pages."));
  }
  for (const s of data.sections) {
    const role = s.role ? ` (${s.role})` : "";
    list.append(el("li", { class: s.static ? "static" : "varying" },
      el("span", {}, (s.static ? "static" : "varying") + role),
      el("span", {}, `diff ${s.diffscore.toFixed(2)}`),
      el("span", { class: "sample", title: s.sample }, s.sample || "—"),
      el("span", { class: "path" }, s.path)));
  }
}

async function showSite(site) {
  wanted = { site, cluster: null };
  const data = await getJSON(`/api/sites/${encodeURIComponent(site)}`);
  if (wanted.site !== site) return;
  document.getElementById("site").hidden = false;
  document.getElementById("template").hidden = true;
  document.getElementById("site-title").textContent = data.site;
  document.getElementById("forget").dataset.site = data.site;
  document.getElementById("forget-status").textContent = "";
  document.getElementById("site-learning").textContent =
    `Learned from ${data.pages_learned} pages into ${data.clusters.length} template ` +
    `cluster${data.clusters.length === 1 ? "" : "s"}; ` +
    `a cluster's template is used once it has learned ${data.min_cluster_pages} pages. ` +
    `${data.pages} pages stored.`;
  const body = document.querySelector("#clusters tbody");
  body.replaceChildren();
  for (const c of data.clusters) {
    const button = el("button", { type: "button" }, "template");
    button.addEventListener("click", () => showTemplate(data.site, c.id).catch(report));
    const chunks = c.chunks ? `${c.chunks.template} of ${c.chunks.tracked}` : "—";
    body.append(el("tr", {}, cell(`#${c.id}`), cell(c.pages, "num"),
      cell(c.pages_stored, "num"),
      cell(el("span", { class: c.active ? "tag on" : "tag" }, c.active ? "in use" : "learning")),
      cell(chunks, "num"), cell(button)));
  }
  drawClusterSizes(data.site, data.clusters);
  const recent = document.querySelector("#recent tbody");
  recent.replaceChildren();
  for (const p of data.recent) {
    const exports = el("span");
    for (const fmt of ["json", "csv", "markdown"]) {
      exports.append(el("a", { href: `/api/pages/${p.id}/export?format=${fmt}` }, fmt), " ");
    }
    recent.append(el("tr", {}, cell(p.title || p.url),
      cell(p.cluster === null ? "—" : `#${p.cluster}`), cell(when(p.seen_at)),
      cell(el("a", { href: `/api/pages/${p.id}/reader`, target: "_blank", rel: "noopener" },
        "read")), cell(exports)));
  }
}

async function load() {
  const data = await getJSON("/api/sites");
  const learned = data.sites.reduce((n, s) => n + s.pages_learned, 0);
  document.getElementById("summary").textContent =
    `${data.sites.length} sites · ${data.pages} pages stored · ${learned} pages learned`;
  const body = document.querySelector("#sites tbody");
  body.replaceChildren();
  for (const s of data.sites) {
    const row = el("tr", { class: "pick", "data-site": s.site }, cell(s.site),
      cell(s.pages, "num"), cell(s.pages_learned, "num"), cell(s.clusters, "num"),
      cell(s.collect ? "yes" : "no"), cell(when(s.last_seen)));
    row.addEventListener("click", () => {
      for (const other of body.querySelectorAll("tr")) other.classList.remove("chosen");
      row.classList.add("chosen");
      showSite(s.site).catch(report);
    });
    body.append(row);
  }
  drawPerDay(data.per_day);
  if (data.sites.length) {
    body.querySelector("tr").classList.add("chosen");
    await showSite(data.sites[0].site);
  } else {
    drawClusterSizes("—", []);
  }
  document.body.dataset.ready = "true";
}

async function forgetSite() {
  const site = document.getElementById("forget").dataset.site;
  if (!site || !window.confirm(`Forget ${site}? Its stored pages and everything Winnow ` +
      "learned of it are deleted; this cannot be undone.")) return;
  const done = await postJSON(`/api/sites/${encodeURIComponent(site)}/forget`, {});
  document.getElementById("site").hidden = true;
  await load();
  document.getElementById("summary").textContent +=
    ` · forgot ${done.site} (${done.pages_deleted} pages deleted)`;
}

document.getElementById("forget").addEventListener("click", () => forgetSite().catch(report));

function report(error) {
  document.getElementById("summary").textContent = `Could not load: ${error.message}`;
  document.body.dataset.ready = "error";
}

load().catch(report);
