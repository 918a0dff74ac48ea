#!/usr/bin/env node
/**
 * Summarize a V8 .cpuprofile of the Next server (from `BENCH_CPU_PROF=1 npm run bench`).
 *
 *   node bench/profile-top.mjs [profile.cpuprofile] [--top 25] [--base other.cpuprofile]
 *                              [--system NAME] [--c N] [--base-system NAME] [--base-c N] [--tree FRAME]
 *                              [--callers FRAME]
 *
 * - Frames in Next's minified build output are mapped back to their sources through the build's
 *   .js.map files, so lib/ code shows as lib/…ts:line instead of `e` in a chunk.
 * - Times are per request when the bench's sidecar <name>.json (request count) is present.
 * - --base: a second profile (e.g. the ceiling alone) to subtract by category and by function:
 *   what the MCP route costs on top of the framework.
 * - Only the timed cells count when the sidecar lists their windows (bench/run.mjs records them):
 *   start-up, warm-up and the other servers' cells are left out. --system / --c keep one system's
 *   cells (one server answers several rows); --base-system / --base-c do the same for the base,
 *   which defaults to this profile: `--system tools/list --base-system ceiling` compares two rows
 *   served by the same process.
 * - --tree FRAME: the call tree below a frame; --callers FRAME: who calls it (six frames up), to
 *   charge a hot library function (path.join, a getter) to the code that asks for it.
 */
import fs from "node:fs";
import path from "node:path";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PROFILE_DIR = path.join(ROOT, "bench", ".work", "profiles");

function parseArgs(argv) {
  const args = { top: 25, tree: undefined, file: undefined, base: undefined, system: undefined, c: undefined, baseSystem: undefined, baseC: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--top") args.top = Number(argv[++i]);
    else if (argv[i] === "--base") args.base = argv[++i];
    else if (argv[i] === "--system") args.system = argv[++i];
    else if (argv[i] === "--c") args.c = Number(argv[++i]);
    else if (argv[i] === "--base-system") args.baseSystem = argv[++i];
    else if (argv[i] === "--base-c") args.baseC = Number(argv[++i]);
    else if (argv[i] === "--tree") args.tree = argv[++i];
    else if (argv[i] === "--callers") args.callers = argv[++i];
    else args.file = argv[i];
  }
  if (!args.file) {
    const newest = fs
      .readdirSync(PROFILE_DIR)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => path.join(PROFILE_DIR, f))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
    if (!newest) throw new Error(`no .cpuprofile in ${PROFILE_DIR}`);
    args.file = newest;
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// Source mapping: one SourceMap per generated file, cached; unmapped frames keep their own url.
// ---------------------------------------------------------------------------------------------
const maps = new Map();

function sourceMapFor(file) {
  if (!maps.has(file)) {
    let map = null;
    try {
      const payload = JSON.parse(fs.readFileSync(`${file}.map`, "utf8"));
      map = { sm: new SourceMap(payload), payload, dir: path.dirname(file) };
    } catch {
      // no map (Next's own precompiled runtime, node internals)
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** First line of the original source at a position, trimmed: names the function for a reader. */
function sourceLine(map, source, line) {
  const index = map.payload.sources?.indexOf(source);
  const text = index >= 0 ? map.payload.sourcesContent?.[index] : undefined;
  return text?.split("\n")[line]?.trim().slice(0, 70) ?? "";
}

/** Key, readable label and category for one call frame. */
function describe(frame) {
  const { functionName, url, lineNumber, columnNumber } = frame;
  if (!url) {
    const name = functionName || "(anonymous)";
    const category = name === "(garbage collector)" ? "gc" : name === "(idle)" ? "idle" : name === "(program)" ? "program" : "native";
    return { key: name, label: name, category };
  }
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  const map = file.startsWith("/") ? sourceMapFor(file) : null;
  if (map && lineNumber >= 0) {
    const entry = map.sm.findEntry(lineNumber, columnNumber);
    if (entry?.originalSource) {
      const source = entry.originalSource;
      const rel = path.relative(ROOT, path.resolve(map.dir, source.replace(/^file:\/\//, "")));
      const where = `${rel}:${entry.originalLine + 1}`;
      const category = rel.startsWith("lib/") || rel.startsWith("app/")
        ? "app code (lib/, app/)"
        : rel.includes("node_modules/zod/")
          ? "zod"
          : rel.includes("node_modules/next/")
            ? "next"
            : "other bundled";
      return { key: where, label: `${where}  ${sourceLine(map, source, entry.originalLine)}`, category };
    }
  }
  const rel = file.startsWith(ROOT) ? path.relative(ROOT, file) : file;
  // lib/ loaded from source (jiti: db-worker.mjs, node-http-server.mjs) has no .map beside it, but is app code.
  const category = rel.startsWith("lib/") || rel.startsWith("app/") ? "app code (lib/, app/)" : rel.includes("node_modules/zod/") ? "zod" : rel.startsWith("node:") ? "node internals" : rel.includes("node_modules/next/") ? "next" : rel.startsWith(".next") ? "next (build output)" : "other";
  const where = `${rel}:${lineNumber + 1}`;
  return { key: `${functionName}@${where}`, label: `${functionName || "(anonymous)"}  ${where}`, category };
}

// ---------------------------------------------------------------------------------------------
// Self and inclusive time per function
// ---------------------------------------------------------------------------------------------
/**
 * The sidecar's request count and sample windows: the timed cells matching `system` and `c`
 * (either undefined = any), or, for an older sidecar without windows, every sample.
 */
function selection(file, system, c) {
  let sidecar;
  try {
    sidecar = JSON.parse(fs.readFileSync(file.replace(/\.cpuprofile$/, ".json"), "utf8"));
  } catch {
    return { requests: undefined, windows: undefined, label: "" }; // no sidecar: totals only
  }
  if (!Array.isArray(sidecar.windows) || sidecar.windows.length === 0) {
    if (system !== undefined || c !== undefined) throw new Error(`${file}: its sidecar lists no cells to select from`);
    return { requests: sidecar.requests, windows: undefined, label: " (whole run, warm-up included)" };
  }
  const windows = sidecar.windows.filter((w) => (system === undefined || w.system === system) && (c === undefined || w.concurrency === c));
  if (windows.length === 0) {
    const known = [...new Set(sidecar.windows.map((w) => `${w.system} c=${w.concurrency}`))].join(", ");
    throw new Error(`${file}: no timed cell of ${system ?? "any system"}${c === undefined ? "" : ` at c=${c}`} (cells: ${known})`);
  }
  const names = [...new Set(windows.map((w) => `${w.system} c=${w.concurrency}`))].join(", ");
  return { requests: windows.reduce((a, w) => a + w.requests, 0), windows, label: ` (timed cells: ${names})` };
}

function analyze(file, system, c, treeRoot, callersOf) {
  const profile = JSON.parse(fs.readFileSync(file, "utf8"));
  const { requests, windows, label } = selection(file, system, c);
  const inWindow = windows ? (t) => windows.some((w) => t >= w.startUs && t < w.endUs) : () => true;
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const info = new Map(profile.nodes.map((n) => [n.id, describe(n.callFrame)]));

  const self = new Map(); // key -> µs
  const total = new Map(); // key -> µs, each function counted once per sample (recursion-safe)
  const categories = new Map();
  const labels = new Map();
  let busy = 0;
  // Samples with an app-code frame anywhere on the stack: our code and all it calls (zod, JSON,
  // undici's Response), against the rest of the request's CPU (the framework, GC, the kernel's writes).
  let throughApp = 0;
  const tree = { us: 0, children: new Map() };
  const callers = new Map(); // --callers: chain of frames above the matched one -> µs
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (!inWindow(t)) continue;
    const id = profile.samples[i];
    const leaf = info.get(id);
    labels.set(leaf.key, leaf);
    self.set(leaf.key, (self.get(leaf.key) ?? 0) + dt);
    categories.set(leaf.category, (categories.get(leaf.category) ?? 0) + dt);
    if (leaf.category !== "idle") busy += dt;
    const seen = new Set();
    let onApp = false;
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const d = info.get(n);
      if (d.category.startsWith("app code")) onApp = true;
      if (seen.has(d.key)) continue;
      seen.add(d.key);
      labels.set(d.key, d);
      total.set(d.key, (total.get(d.key) ?? 0) + dt);
    }
    if (onApp) throughApp += dt;
    if (treeRoot) addToTree(tree, id, parent, info, treeRoot, dt);
    if (callersOf) addCallers(callers, id, parent, info, callersOf, dt);
  }
  return { file, self, total, categories, labels, busy, throughApp, tree, callers, requests, label };
}

/**
 * --tree: the call tree below the outermost frame whose label contains `root`, merged over every
 * stack through it (frames keyed as in the tables), so a frame's inclusive time can be split by callee.
 */
function addToTree(tree, id, parent, info, root, dt) {
  const stack = [];
  for (let n = id; n !== undefined; n = parent.get(n)) stack.push(info.get(n));
  stack.reverse();
  const start = stack.findIndex((d) => d.label.includes(root));
  if (start < 0) return;
  let node = tree;
  node.us += dt;
  for (const d of stack.slice(start)) {
    if (!node.children.has(d.key)) node.children.set(d.key, { label: d.label, us: 0, children: new Map() });
    node = node.children.get(d.key);
    node.us += dt;
  }
}

/**
 * --callers: who calls a frame. For each sample through the innermost frame whose label contains
 * `frame`, the six frames above it, joined; a hot library function (path.join, a getter) is
 * then charged to the code that asks for it.
 */
function addCallers(callers, id, parent, info, frame, dt) {
  let n = id;
  while (n !== undefined && !info.get(n).label.includes(frame)) n = parent.get(n);
  if (n === undefined) return;
  const chain = [];
  for (let up = parent.get(n); up !== undefined && chain.length < 6; up = parent.get(up)) chain.push(info.get(up).label.replace(/\s{2,}.*/, ""));
  const key = chain.join("  <  ");
  callers.set(key, (callers.get(key) ?? 0) + dt);
}

function printCallers(p, frame, top) {
  const div = p.requests ?? 1000;
  console.log(`\n## Callers of the innermost "${frame}" frame (${p.requests ? "µs/req" : "ms"}; six frames up, nearest first)`);
  for (const [chain, us] of [...p.callers.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(us / div)}  ${chain}`);
}

function printTree(p, minUs) {
  const div = p.requests ?? 1000;
  console.log(`\n## Call tree below the --tree frame (inclusive ${p.requests ? "µs/req" : "ms"}; callees under ${minUs} left out)`);
  const walk = (node, depth) => {
    for (const child of [...node.children.values()].sort((a, b) => b.us - a.us)) {
      if (child.us / div < minUs) continue;
      console.log(`${fmt(child.us / div)}  ${"  ".repeat(depth)}${child.label}`);
      walk(child, depth + 1);
    }
  };
  walk(p.tree, 0);
}

// µs per request when the request count is known, else ms in total.
function unit(p) {
  return p.requests ? { div: p.requests, name: "µs/req" } : { div: 1000, name: "ms" };
}

function fmt(n, digits = 1) {
  return n.toFixed(digits).padStart(9);
}

function report(p, base, top) {
  const u = unit(p);
  const bu = base ? unit(base) : undefined;
  console.log(`\n# ${path.relative(ROOT, p.file)}${p.label}${p.requests ? `, ${p.requests} requests` : ""}`);
  if (base) console.log(`  base: ${path.relative(ROOT, base.file)}${base.label}${base.requests ? `, ${base.requests} requests` : ""}; Δ = this − base`);
  console.log(`  busy (non-idle) CPU: ${fmt(p.busy / u.div)} ${u.name}${base ? `   base ${fmt(base.busy / bu.div)}   Δ ${fmt(p.busy / u.div - base.busy / bu.div)}` : ""}`);

  console.log(`  CPU with app code on the stack: ${fmt(p.throughApp / u.div)} ${u.name}${base ? `   base ${fmt(base.throughApp / bu.div)}   Δ ${fmt(p.throughApp / u.div - base.throughApp / bu.div)}` : ""}`);
  console.log(`  the rest (framework, GC, runtime): ${fmt((p.busy - p.throughApp) / u.div)} ${u.name}${base ? `   base ${fmt((base.busy - base.throughApp) / bu.div)}   Δ ${fmt((p.busy - p.throughApp) / u.div - (base.busy - base.throughApp) / bu.div)}` : ""}`);

  console.log(`\n## Self time by category (${u.name})`);
  const cats = new Set([...p.categories.keys(), ...(base ? base.categories.keys() : [])]);
  const catRows = [...cats].map((c) => {
    const v = (p.categories.get(c) ?? 0) / u.div;
    const b = base ? (base.categories.get(c) ?? 0) / bu.div : undefined;
    return { c, v, b };
  });
  for (const { c, v, b } of catRows.sort((x, y) => y.v - x.v)) {
    console.log(`${fmt(v)}${b === undefined ? "" : `  base ${fmt(b)}  Δ ${fmt(v - b)}`}  ${c}`);
  }

  const rows = (map, filter) =>
    [...map.entries()]
      .filter(([k]) => filter(p.labels.get(k)))
      .map(([k, v]) => {
        const b = base ? (base[map === p.self ? "self" : "total"].get(k) ?? 0) / bu.div : undefined;
        return { k, v: v / u.div, b };
      })
      .sort((x, y) => (base ? y.v - y.b - (x.v - x.b) : y.v - x.v))
      .slice(0, top);
  const print = (title, list) => {
    console.log(`\n## ${title}`);
    for (const { k, v, b } of list) {
      console.log(`${fmt(v)}${b === undefined ? "" : `  Δ ${fmt(v - b)}`}  [${p.labels.get(k).category}] ${p.labels.get(k).label}`);
    }
  };
  print(`Top self time, all code (${u.name}${base ? ", sorted by Δ" : ""})`, rows(p.self, (d) => d.category !== "idle"));
  print(`Top inclusive time, app code lib/ app/ (${u.name}${base ? ", sorted by Δ" : ""})`, rows(p.total, (d) => d.category.startsWith("app code")));
  print(`Top self time, app code + zod (${u.name})`, rows(p.self, (d) => d.category.startsWith("app code") || d.category === "zod"));
}

const args = parseArgs(process.argv.slice(2));
const wantsBase = args.base !== undefined || args.baseSystem !== undefined || args.baseC !== undefined;
const base = wantsBase ? analyze(args.base ?? args.file, args.baseSystem, args.baseC) : undefined;
const main = analyze(args.file, args.system, args.c, args.tree, args.callers);
report(main, base, args.top);
if (args.tree) printTree(main, 0.3);
if (args.callers) printCallers(main, args.callers, args.top);
