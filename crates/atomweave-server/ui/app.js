// The browser UI of `atomweave serve`: pages over the server's read-only
// JSON API (/api/...). No libraries and nothing fetched from elsewhere:
// the server embeds this file. Atoms are named by their Atomese text.
"use strict";

const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("aw-token", params.get("token"));
const token = sessionStorage.getItem("aw-token");
const main = document.getElementById("main");
let lastOverview = null;
let lastCommands = null;

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

async function api(route, args) {
  const q = new URLSearchParams(args || {}).toString();
  const r = await fetch("/api/" + route + (q ? "?" + q : ""), { headers: token ? { Authorization: "Bearer " + token } : {} });
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch (e) { throw new Error(text || r.statusText); }
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function atomLink(text) {
  return '<a class="atom" href="#/atom/' + encodeURIComponent(text) + '">' + esc(text) + "</a>";
}

function showError(e) {
  return '<div class="error">' + esc(e.message || e) + "</div>";
}

// A short label for a graph node: the type's initials and the name.
function label(text) {
  const m = /^\((\w+)\s*(?:"((?:[^"\\]|\\.)*)")?/.exec(text);
  if (!m) return text.slice(0, 24);
  const initials = m[1].replace(/(Node|Link)$/, "");
  return m[2] !== undefined ? initials + " " + m[2].slice(0, 20) : initials;
}

// ---- overview ----

function fmtBytes(n) {
  return n > 1 << 30 ? (n / (1 << 30)).toFixed(2) + " GiB" : (n / (1 << 20)).toFixed(1) + " MiB";
}

function overviewCards(o, rate) {
  const cards = [["atoms", o.atoms], ["nodes", o.nodes], ["links", o.links], ["connections", o.connections],
    ["commands/s", rate === null ? "…" : rate.toFixed(0)], ["memory", fmtBytes(o.resident_bytes)], ["store lag", o.store.lag]];
  return cards.map(([k, n]) => '<div class="card"><div class="n" data-k="' + esc(k) + '">' + esc(n) + '</div><div class="k">' + esc(k) + "</div></div>").join("");
}

function typesChart(types) {
  const top = types.slice(0, 20);
  const max = Math.max(1, ...top.map((t) => t[1]));
  const rowH = 22, w = 760, left = 190;
  let svg = '<svg id="types-chart" width="' + w + '" height="' + (top.length * rowH + 10) + '">';
  top.forEach(([name, n], i) => {
    const y = 5 + i * rowH, bw = Math.max(2, (w - left - 90) * n / max);
    svg += '<a href="#/search?type=' + encodeURIComponent(name) + '"><text x="6" y="' + (y + 14) + '">' + esc(name) + "</text>" +
      '<rect x="' + left + '" y="' + (y + 3) + '" width="' + bw + '" height="14" fill="#3b74d6"></rect>' +
      '<text x="' + (left + bw + 6) + '" y="' + (y + 14) + '">' + n + "</text></a>";
  });
  return svg + "</svg>";
}

async function overview() {
  const o = await api("overview");
  lastOverview = o;
  main.innerHTML = "<h1>Overview</h1>" + '<div class="cards" id="overview-cards">' + overviewCards(o, null) + "</div>" +
    "<h2>Atoms by type</h2>" + (o.types.length ? typesChart(o.types) : '<p class="muted">The space is empty.</p>');
}

// The header's counters, and the overview's, every second.
async function tick() {
  try {
    const o = await api("overview");
    const rate = lastCommands === null ? null : o.commands - lastCommands;
    lastCommands = o.commands;
    document.getElementById("live").textContent = o.atoms + " atoms · " + o.connections + " connections · " + (rate === null ? "…" : rate) + " commands/s";
    const cards = document.getElementById("overview-cards");
    if (cards) {
      cards.innerHTML = overviewCards(o, rate);
      if (lastOverview && JSON.stringify(lastOverview.types) !== JSON.stringify(o.types)) {
        const chart = document.getElementById("types-chart");
        if (chart) chart.outerHTML = typesChart(o.types);
      }
      lastOverview = o;
    }
  } catch (e) {
    document.getElementById("live").textContent = "server unreachable: " + e.message;
  }
}

// ---- atoms by type and name ----

async function search(args) {
  const type = args.get("type") || "ConceptNode", prefix = args.get("prefix") || "", offset = +(args.get("offset") || 0), limit = 50;
  let html = '<h1>Atoms</h1><form id="search-form"><input id="search-type" value="' + esc(type) + '" list="types" placeholder="type">' +
    '<input id="search-prefix" value="' + esc(prefix) + '" placeholder="name starts with"><button>Search</button></form>' +
    '<datalist id="types">' + (lastOverview ? lastOverview.types.map((t) => '<option value="' + esc(t[0]) + '">').join("") : "") + "</datalist>";
  try {
    const r = await api("atoms", { type, prefix, offset, limit });
    html += '<div id="results"><p class="muted">' + r.total + " atoms</p><table>" +
      r.atoms.map((a) => "<tr><td>" + atomLink(a) + "</td></tr>").join("") + "</table>" +
      pager(r.total, offset, limit, (o) => "#/search?" + new URLSearchParams({ type, prefix, offset: o })) + "</div>";
  } catch (e) {
    html += showError(e);
  }
  main.innerHTML = html;
  document.getElementById("search-form").onsubmit = (ev) => {
    ev.preventDefault();
    location.hash = "#/search?" + new URLSearchParams({ type: document.getElementById("search-type").value, prefix: document.getElementById("search-prefix").value });
  };
}

function pager(total, offset, limit, href) {
  if (total <= limit) return "";
  const prev = offset > 0 ? '<a href="' + href(Math.max(0, offset - limit)) + '">previous</a>' : "";
  const next = offset + limit < total ? '<a href="' + href(offset + limit) + '">next</a>' : "";
  return '<div class="pager">' + prev + '<span class="muted">' + (offset + 1) + "–" + Math.min(total, offset + limit) + " of " + total + "</span>" + next + "</div>";
}

// ---- one atom ----

function sparkline(xs) {
  if (!xs || xs.length < 2) return "";
  const w = 160, h = 36, lo = Math.min(...xs), hi = Math.max(...xs), span = hi - lo || 1;
  const pts = xs.map((x, i) => (i * w / (xs.length - 1)).toFixed(1) + "," + (h - 3 - (x - lo) * (h - 6) / span).toFixed(1)).join(" ");
  return '<svg class="spark" width="' + w + '" height="' + h + '"><polyline fill="none" stroke="#3b74d6" stroke-width="1.5" points="' + pts + '"></polyline></svg>';
}

async function atomPage(text, args) {
  const offset = +(args.get("offset") || 0), limit = 50;
  let a;
  try {
    a = await api("atom", { atom: text, offset, limit });
  } catch (e) {
    main.innerHTML = "<h1>Atom</h1>" + showError(e);
    return;
  }
  main.innerHTML = '<h1 id="atom-title">' + esc(a.type) + (a.name !== null ? " <code>" + esc(a.name) + "</code>" : "") + "</h1>" +
    "<p><code>" + esc(a.atom) + "</code></p>" +
    (a.outgoing.length ? "<h2>Outgoing set</h2><table>" + a.outgoing.map((o) => "<tr><td>" + atomLink(o) + "</td></tr>").join("") + "</table>" : "") +
    "<h2>Incoming set (" + a.incoming.total + ")</h2><div id=\"incoming\"><table>" + a.incoming.atoms.map((o) => "<tr><td>" + atomLink(o) + "</td></tr>").join("") + "</table>" +
    pager(a.incoming.total, offset, limit, (o) => "#/atom/" + encodeURIComponent(text) + "?offset=" + o) + "</div>" +
    '<h2>Values</h2><table id="values"><tr><th>key</th><th>value</th><th></th></tr>' +
    a.values.map((v) => "<tr><td><code>" + esc(v.key) + "</code></td><td><code>" + esc(v.value) + "</code></td><td>" + sparkline(v.floats) + "</td></tr>").join("") + "</table>" +
    '<h2>Neighbourhood <span class="muted">(click an atom to expand it; double-click to open it)</span></h2><div id="graph-box"></div>';
  const g = new Graph(document.getElementById("graph-box"), "graph");
  g.add(a.atom, true);
  a.outgoing.forEach((o) => g.link(a.atom, o));
  a.incoming.atoms.slice(0, 30).forEach((i) => g.link(i, a.atom));
  g.expanded.add(a.atom);
  g.draw();
}

// A neighbourhood graph: atoms as circles, outgoing-set membership as
// lines; a click adds the clicked atom's own neighbours.
class Graph {
  constructor(box, id) {
    this.box = box; this.id = id; this.nodes = new Map(); this.edges = new Set(); this.expanded = new Set();
  }
  add(text, centre) {
    if (!this.nodes.has(text)) {
      const n = this.nodes.size, r = centre ? 0 : 80 + 12 * n;
      this.nodes.set(text, { text, x: 380 + r * Math.cos(n * 2.4), y: 230 + r * Math.sin(n * 2.4), vx: 0, vy: 0 });
    }
  }
  link(from, to) {
    this.add(from); this.add(to); this.edges.add(from + "\u0000" + to);
  }
  layout() {
    const ns = [...this.nodes.values()], es = [...this.edges].map((e) => e.split("\u0000").map((t) => this.nodes.get(t)));
    for (let step = 0; step < 200; step++) {
      for (const a of ns) for (const b of ns) {
        if (a === b) continue;
        const dx = a.x - b.x, dy = a.y - b.y, d2 = Math.max(dx * dx + dy * dy, 25), f = 1800 / d2;
        a.vx += dx * f / Math.sqrt(d2); a.vy += dy * f / Math.sqrt(d2);
      }
      for (const [a, b] of es) {
        const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1, f = (d - 90) * 0.05;
        a.vx += dx / d * f; a.vy += dy / d * f; b.vx -= dx / d * f; b.vy -= dy / d * f;
      }
      for (const n of ns) {
        n.vx += (380 - n.x) * 0.005; n.vy += (230 - n.y) * 0.005;
        n.x = Math.min(740, Math.max(20, n.x + n.vx * 0.5)); n.y = Math.min(440, Math.max(20, n.y + n.vy * 0.5)); n.vx *= 0.6; n.vy *= 0.6;
      }
    }
  }
  draw() {
    this.layout();
    let svg = '<svg id="' + this.id + '" width="760" height="460" data-nodes="' + this.nodes.size + '">';
    for (const e of this.edges) {
      const [a, b] = e.split("\u0000").map((t) => this.nodes.get(t));
      svg += '<line x1="' + a.x + '" y1="' + a.y + '" x2="' + b.x + '" y2="' + b.y + '" stroke="#9aa7bd"></line>';
    }
    let i = 0;
    for (const n of this.nodes.values()) {
      const fill = this.expanded.has(n.text) ? "#1a56b8" : n.text.includes("Link") ? "#e39b2d" : "#3b74d6";
      svg += '<g class="node" data-i="' + i++ + '"><circle cx="' + n.x + '" cy="' + n.y + '" r="9" fill="' + fill + '"><title>' + esc(n.text) + "</title></circle>" +
        '<text x="' + (n.x + 12) + '" y="' + (n.y + 4) + '">' + esc(label(n.text)) + "</text></g>";
    }
    this.box.innerHTML = svg + "</svg>";
    const texts = [...this.nodes.keys()];
    this.box.querySelectorAll("g.node").forEach((el) => {
      const text = texts[+el.dataset.i];
      el.onclick = () => this.expand(text);
      el.ondblclick = () => { location.hash = "#/atom/" + encodeURIComponent(text); };
    });
  }
  async expand(text) {
    if (this.expanded.has(text)) return;
    try {
      const a = await api("atom", { atom: text, limit: 20 });
      a.outgoing.forEach((o) => this.link(text, o));
      a.incoming.atoms.forEach((l) => this.link(l, text));
      this.expanded.add(text);
      this.draw();
    } catch (e) {
      this.box.insertAdjacentHTML("beforeend", showError(e));
    }
  }
}

// ---- queries ----

function queryPage() {
  const saved = sessionStorage.getItem("aw-query") || '(Get (VariableList (Variable "$x") (Variable "$y"))\n  (Inheritance (Variable "$x") (Variable "$y")))';
  main.innerHTML = '<h1>Query</h1><p class="muted">Atomese in; it runs in a frame of its own, so nothing it makes stays in the space.</p>' +
    '<textarea id="query-text">' + esc(saved) + '</textarea><p><button id="query-run">Run</button></p><div id="query-out"></div>';
  document.getElementById("query-run").onclick = async () => {
    const q = document.getElementById("query-text").value, out = document.getElementById("query-out");
    sessionStorage.setItem("aw-query", q);
    out.innerHTML = '<p class="muted">Running…</p>';
    try {
      const r = await api("query", { q });
      out.innerHTML = "<h2>" + r.total + " results" + (r.total > r.rows.length ? " (the first " + r.rows.length + ")" : "") + '</h2><table id="query-rows">' +
        r.rows.map((row) => "<tr>" + row.map((a) => "<td>" + (a.startsWith("(") && !/Value /.test(a) ? atomLink(a) : "<code>" + esc(a) + "</code>") + "</td>").join("") + "</tr>").join("") +
        '</table><h2>As a graph</h2><div id="query-graph-box"></div>';
      const g = new Graph(document.getElementById("query-graph-box"), "query-graph");
      r.rows.slice(0, 60).forEach((row) => row.length > 1 ? row.slice(1).forEach((b, i) => g.link(row[i], b)) : g.add(row[0]));
      g.draw();
    } catch (e) {
      out.innerHTML = showError(e);
    }
  };
}

// ---- routes ----

async function route() {
  const h = location.hash || "#/";
  const [path, query] = h.slice(1).split("?");
  const args = new URLSearchParams(query || "");
  for (const id of ["overview", "search", "query"]) document.getElementById("nav-" + id).classList.remove("active");
  try {
    if (path.startsWith("/atom/")) {
      await atomPage(decodeURIComponent(path.slice(6)), args);
    } else if (path === "/search") {
      document.getElementById("nav-search").classList.add("active");
      await search(args);
    } else if (path === "/query") {
      document.getElementById("nav-query").classList.add("active");
      queryPage();
    } else {
      document.getElementById("nav-overview").classList.add("active");
      await overview();
    }
  } catch (e) {
    main.innerHTML = showError(e);
  }
}

window.addEventListener("hashchange", route);
route();
tick();
setInterval(tick, 1000);
