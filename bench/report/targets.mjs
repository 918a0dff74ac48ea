/** The issue's targets: measured value, goal, verdict, the server-CPU view and the floor. */
import { ERAS } from "../cells/client.mjs";
import { REDIS_LIMITER } from "../cells/limiter-cell.mjs";
import { NODE_RAW } from "../cells/systems.mjs";
import { CEILING_BODY, CEILING_PAGE, CONFIG, directRowName } from "../config.mjs";
import { skipped } from "../runner/skipped.mjs";
import { fmt, fmtSpread, median, pairOf, spreadOf } from "./stats.mjs";

export const TARGET_P50_RATIO = 1.5;

/** The issue's target, once per concurrency: get_world on PostgreSQL against the ceiling, both p50. */
export function targetLines(rows) {
  return CONFIG.concurrencies.flatMap((c) => {
    const row = rows.find((r) => r.system === "get_world/pg" && r.concurrency === c);
    if (!row || row.p50Ratio === undefined) return [];
    const verdict = row.p50Ratio <= TARGET_P50_RATIO ? "met" : "**not met**";
    return [`- c=${c}: get_world p50 on PostgreSQL vs ceiling p50: ${fmt(row.p50Ratio, 2)}x (target <= ${TARGET_P50_RATIO}x) — ${verdict}`];
  });
}

/** The issue's goals. */
export const GOALS = { vsCeiling: 0.95, vsFloor: 0.95, redisP50: 1.15, getWorldFloorP50: 1.2, vsMcpHandler: 2.5, mcpHandlerAt: 32, coreVsRaw: 0.3, getWorldP50: TARGET_P50_RATIO, coldStart: 1.1, rss: 1.1 };

/** The cold-start and memory comparisons: medians, and the ratios of the i-th run of each kind. */
export function coldPairs(cold) {
  if (!cold) return undefined;
  const ceiling = cold.runs.ceiling;
  const ours = cold.runs["tools/list"];
  const n = Math.min(ceiling.length, ours.length);
  if (n === 0) return undefined;
  const of = (field) => ({
    ours: median(ours.map((r) => r[field])),
    ceiling: median(ceiling.map((r) => r[field])),
    spread: spreadOf(Array.from({ length: n }, (_, i) => ours[i][field] / ceiling[i][field])),
  });
  const start = of("startMs");
  const rss = of("rssKb");
  return { n, start: { ...start, value: start.ours / start.ceiling }, rss: { ...rss, value: rss.ours / rss.ceiling } };
}

/** "skipped" when a group's rows were (the reason is under the table). */
export const skippedNote = (group) => (skipped.some((s) => s.group === group) ? `${group} rows skipped (below)` : "");

/**
 * A floor at c=1, where one request's latency is its parts one after another: the route that
 * only reads its body, then get_world's statement timed alone (no HTTP), ÷ the ceiling's p50 —
 * overall and per round. The Redis rows use it too: the in-process row plus the limiter's Redis
 * call alone, ÷ the in-process row. At c=32 the parts overlap on the shared cores and do not add
 * up, so there is no floor there.
 */
export function queryFloorOf(body, query, ceiling) {
  if (!body || !query || !ceiling || body.concurrency !== 1) return undefined;
  return {
    value: (body.p50 + query.p50) / ceiling.p50,
    spread: spreadOf(body.roundP50.map((p, i) => (p + query.roundP50[i]) / ceiling.roundP50[i])),
  };
}

/**
 * One line per target and c: what was measured against the goal, pass or miss, and the floor —
 * the same measure taken for the least any JSON-RPC route on this framework must do (read its
 * body), in the same run. A floor that misses the goal says no implementation on these route
 * handlers could meet it on this machine.
 */
export function targetRows(rows, cold) {
  const at = (name, c) => rows.find((r) => r.system === name && r.concurrency === c);
  const out = [];
  const add = (target, c, pair, goal, detail, floor) => out.push({ target, c, pair, goal, detail, floor });
  const atLeast = (x) => ({ text: `≥ ${x}x`, ok: (v) => v >= x });
  const atMost = (x) => ({ text: `≤ ${x}x`, ok: (v) => v <= x });
  const rps = (a, b) => (a && b ? `${fmt(a.rps)} vs ${fmt(b.rps)} req/s` : "");
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      for (const c of CONFIG.concurrencies) {
        const ours = at(`${req}${era.suffix}`, c);
        const ceiling = at("ceiling", c);
        if (ours && ceiling) add(`${req}${era.suffix} req/s ÷ ceiling req/s`, c, pairOf(ours, ceiling), atLeast(GOALS.vsCeiling), rps(ours, ceiling), pairOf(at(CEILING_BODY, c), ceiling));
      }
    }
  }
  // Issue 22: each against its own floor — tools/call against ceiling+body, tools/list against
  // ceiling+page (the same route answering a tools/list page's bytes).
  for (const [req, floorName] of [["tools/list", CEILING_PAGE], ["tools/call", CEILING_BODY]]) {
    for (const era of ERAS) {
      for (const c of CONFIG.concurrencies) {
        const ours = at(`${req}${era.suffix}`, c);
        const floor = at(floorName, c);
        if (ours && floor) add(`${req}${era.suffix} req/s ÷ ${floorName} req/s (issue 22)`, c, pairOf(ours, floor), atLeast(GOALS.vsFloor), rps(ours, floor));
      }
    }
  }
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      const c = GOALS.mcpHandlerAt;
      const ours = at(`${req}${era.suffix}`, c);
      const theirs = at(`mcp-handler ${req}${era.suffix}`, c);
      if (theirs || skippedNote("mcp-handler")) add(`${req}${era.suffix} req/s ÷ mcp-handler ${req}${era.suffix} req/s`, c, pairOf(ours, theirs), atLeast(GOALS.vsMcpHandler), rps(ours, theirs) || skippedNote("mcp-handler"), pairOf(at(CEILING_BODY, c), theirs));
    }
  }
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      for (const c of CONFIG.concurrencies) {
        const core = at(`node:http core ${req}${era.suffix}`, c);
        const raw = at(NODE_RAW, c);
        if (core || skippedNote("node:http")) add(`node:http core ${req}${era.suffix} req/s ÷ node:http raw req/s`, c, pairOf(core, raw), atLeast(GOALS.coreVsRaw), rps(core, raw) || skippedNote("node:http"));
      }
    }
  }
  for (const era of ERAS) {
    for (const c of CONFIG.concurrencies) {
      const row = at(`get_world${era.suffix}/pg`, c);
      const ceiling = at("ceiling", c);
      if (row && ceiling) add(`get_world${era.suffix}/pg p50 ÷ ceiling p50`, c, pairOf(row, ceiling, "p50"), atMost(GOALS.getWorldP50), `${fmt(row.p50, 2)} vs ${fmt(ceiling.p50, 2)} ms`, queryFloorOf(at(CEILING_BODY, c), at(directRowName("get_world", "pg"), c), ceiling));
    }
  }
  // Issue 22: get_world at c=1 against its own floor, ceiling+body's p50 plus the statement's alone.
  for (const era of ERAS) {
    const row = at(`get_world${era.suffix}/pg`, 1);
    const body = at(CEILING_BODY, 1);
    const query = at(directRowName("get_world", "pg"), 1);
    if (row && body && query) {
      const value = row.p50 / (body.p50 + query.p50);
      const spread = spreadOf(row.roundP50.map((p, i) => p / (body.roundP50[i] + query.roundP50[i])));
      add(`get_world${era.suffix}/pg p50 ÷ (ceiling+body p50 + ${directRowName("get_world", "pg")} p50) (issue 22)`, 1, { value, spread }, atMost(GOALS.getWorldFloorP50), `${fmt(row.p50, 2)} vs ${fmt(body.p50, 2)} + ${fmt(query.p50, 2)} ms`);
    }
  }
  // Issue 22: with Redis (sessions, limits, bus) against the same server counting in process.
  for (const era of ERAS) {
    for (const c of CONFIG.concurrencies) {
      const redis = at(`tools/call+limits:redis${era.suffix}`, c);
      const memory = at(`tools/call+limits:memory${era.suffix}`, c);
      if (redis && memory) add(`tools/call+limits:redis${era.suffix} p50 ÷ tools/call+limits:memory${era.suffix} p50 (Redis sessions, limits, bus vs in process)`, c, pairOf(redis, memory, "p50"), atMost(GOALS.redisP50), `${fmt(redis.p50, 2)} vs ${fmt(memory.p50, 2)} ms`, queryFloorOf(memory, at(REDIS_LIMITER, c), memory));
    }
  }
  // The same at c=1 against its own floor: the in-process row's p50 plus the limiter's Redis call
  // timed alone (cells/limiter-cell.mjs), one request's parts back to back.
  for (const era of ERAS) {
    const redis = at(`tools/call+limits:redis${era.suffix}`, 1);
    const memory = at(`tools/call+limits:memory${era.suffix}`, 1);
    const limiter = at(REDIS_LIMITER, 1);
    if (redis && memory && limiter) {
      const value = redis.p50 / (memory.p50 + limiter.p50);
      const spread = spreadOf(redis.roundP50.map((p, i) => p / (memory.roundP50[i] + limiter.roundP50[i])));
      add(`tools/call+limits:redis${era.suffix} p50 ÷ (tools/call+limits:memory${era.suffix} p50 + ${REDIS_LIMITER} p50) (issue 22)`, 1, { value, spread }, atMost(GOALS.redisP50), `${fmt(redis.p50, 2)} vs ${fmt(memory.p50, 2)} + ${fmt(limiter.p50, 3)} ms`);
    }
  }
  for (const [label, first] of [
    ["as the first request", cold?.firstData?.runs ?? []],
    ["after a first tools/list", cold?.firstData?.afterList ?? []],
  ]) {
    if (first.length === 0) continue;
    const added = first.map((r) => r.firstMs - r.warmMs);
    out.push({ target: `first data tool call after a cold start (${label}) − a warm call, get_world@2026/pg`, c: 1, pair: { value: median(added), spread: spreadOf(added) }, goal: { text: "≤ 100 ms", ok: (v) => v <= 100 }, detail: `${fmt(median(first.map((r) => r.firstMs)), 1)} vs ${fmt(median(first.map((r) => r.warmMs)), 1)} ms (medians of ${first.length})`, unit: "ms" });
  }
  const ceilingFirst = cold?.firstData?.ceilingFirst ?? [];
  if (ceilingFirst.length > 0) {
    const added = ceilingFirst.map((r) => r.firstMs - r.warmMs);
    out.push({ target: "the floor under it: the bare ceiling route as a process's first request − a warm ceiling", c: 1, pair: { value: median(added), spread: spreadOf(added) }, goal: { text: "≤ 100 ms", ok: (v) => v <= 100 }, detail: `${fmt(median(ceilingFirst.map((r) => r.firstMs)), 1)} vs ${fmt(median(ceilingFirst.map((r) => r.warmMs)), 2)} ms (medians of ${ceilingFirst.length})`, unit: "ms" });
  }
  const pairs = coldPairs(cold);
  if (cold) {
    const n = pairs ? ` (medians of ${pairs.n})` : "";
    add("cold start: spawn → first good tools/list ÷ spawn → first good ceiling answer", "—", pairs?.start, atMost(GOALS.coldStart), pairs ? `${fmt(pairs.start.ours)} vs ${fmt(pairs.start.ceiling)} ms${n}` : cold.error ?? "");
    add("RSS after warm-up: our server ÷ a server that served only the ceiling", "—", pairs?.rss, atMost(GOALS.rss), pairs ? `${fmt(pairs.rss.ours / 1024, 1)} vs ${fmt(pairs.rss.ceiling / 1024, 1)} MiB${n}` : cold.error ?? "");
  }
  return out;
}

/** The summary table of the issue's targets. */
export function targetsTable(rows, cold) {
  const lines = [
    "| target | c | measured | detail | per-round median [min–max] | goal | result | server-CPU view: CPU/req ratio, per-round [min–max], verdict | floor (ceiling+body; get_world and Redis rows: their parts alone), per-round [min–max], verdict |",
    "|---|--:|--:|---|--:|--:|---|--:|--:|",
  ];
  const verdict = (value, goal) => (!Number.isFinite(value) ? "not measured" : goal.ok(value) ? "pass" : "**miss**");
  // A side view of a target (server CPU, floor): its ratio, per-round [min–max] and verdict.
  const sideView = (ratio, goal) => (ratio ? `${fmt(ratio.value, 2)}x ${fmtSpread(ratio.spread).replace(/^[^ ]+ /, "")} ${verdict(ratio.value, goal)}` : "");
  for (const t of targetRows(rows, cold)) {
    const value = t.pair?.value;
    lines.push(`| ${t.target} | ${t.c} | ${Number.isFinite(value) ? `**${fmt(value, t.unit ? 1 : 2)}${t.unit ? ` ${t.unit}` : "x"}**` : "n/a"} | ${t.detail} | ${fmtSpread(t.pair?.spread)} | ${t.goal.text} | ${verdict(value, t.goal)} | ${sideView(t.pair?.cpu, t.goal)} | ${sideView(t.floor, t.goal)} |`);
  }
  return lines;
}
