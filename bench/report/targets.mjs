/** The issue's targets: measured value, goal, verdict, the server-CPU view and the floor. */
import { ERAS } from "../cells/client.mjs";
import { REDIS_LIMITER } from "../cells/limiter-cell.mjs";
import { NODE_RAW } from "../cells/systems.mjs";
import { CEILING_BODY, CEILING_BODY_TWIN, CEILING_PAGE, CONFIG, directRowName, limiterRowName, statementRowName } from "../config.mjs";
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
  const cpu = of("cpuMs");
  const rss = of("rssKb");
  // The CPU used by the first answer, as the req/s targets' server-CPU view: the same goal, read beside it.
  const cpuView = Number.isFinite(cpu.ours / cpu.ceiling) ? { value: cpu.ours / cpu.ceiling, spread: cpu.spread } : undefined;
  return { n, start: { ...start, value: start.ours / start.ceiling, cpu: cpuView }, cpuMs: cpu, rss: { ...rss, value: rss.ours / rss.ceiling } };
}

/** "skipped" when a group's rows were (the reason is under the table). */
export const skippedNote = (group) => (skipped.some((s) => s.group === group) ? `${group} rows skipped (below)` : "");

/**
 * A row's p50 ÷ the sum of its parts' p50s, overall and per round: at c=1, one request against its
 * parts timed apart and added back to back (ceiling+body and get_world's statement alone; the
 * in-process limiter row and the limiter's Redis call alone). The sum leaves out what a request
 * that blocks on I/O mid-way pays for waking up, so the measured floors (ceiling+statement,
 * ceiling+limiter) are the floors, and the sum is kept for the issue's goal as it was set.
 */
export function p50OverSum(row, parts) {
  if (!row || parts.some((part) => !part)) return undefined;
  const sum = (p50Of) => parts.reduce((total, part) => total + p50Of(part), 0);
  return { value: row.p50 / sum((part) => part.p50), spread: spreadOf(row.roundP50.map((p, i) => p / sum((part) => part.roundP50[i]))) };
}

/** A line shown for reading, with no goal of the issue's behind it: no verdict. */
export const NO_GOAL = { text: "—", ok: undefined };

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
  // The A/A control: ceiling+body against itself under another name. No goal: how far this run's
  // ratios stray when nothing differs, read beside the 0.95x lines above.
  for (const c of CONFIG.concurrencies) {
    const twin = at(CEILING_BODY_TWIN, c);
    const floor = at(CEILING_BODY, c);
    if (twin && floor) add(`${CEILING_BODY_TWIN} req/s ÷ ${CEILING_BODY} req/s (A/A control: the same route twice)`, c, pairOf(twin, floor), NO_GOAL, rps(twin, floor));
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
      // Floor: the bare route waiting on get_world's statement (ceiling+statement), measured at every c.
      if (row && ceiling) add(`get_world${era.suffix}/pg p50 ÷ ceiling p50`, c, pairOf(row, ceiling, "p50"), atMost(GOALS.getWorldP50), `${fmt(row.p50, 2)} vs ${fmt(ceiling.p50, 2)} ms`, pairOf(at(statementRowName("pg"), c), ceiling, "p50"));
    }
  }
  // Issue 22: get_world at c=1 against its parts timed apart, ceiling+body's p50 plus the
  // statement's alone (the goal was set against that sum). Floor: ceiling+statement against the
  // same sum — what a bare route that really waits on the statement pays beyond it.
  const getWorldParts = [at(CEILING_BODY, 1), at(directRowName("get_world", "pg"), 1)];
  for (const era of ERAS) {
    const row = at(`get_world${era.suffix}/pg`, 1);
    const [body, query] = getWorldParts;
    if (row && body && query) {
      add(`get_world${era.suffix}/pg p50 ÷ (ceiling+body p50 + ${directRowName("get_world", "pg")} p50) (issue 22)`, 1, p50OverSum(row, getWorldParts), atMost(GOALS.getWorldFloorP50), `${fmt(row.p50, 2)} vs ${fmt(body.p50, 2)} + ${fmt(query.p50, 2)} ms`, p50OverSum(at(statementRowName("pg"), 1), getWorldParts));
    }
  }
  // The same request against the measured floor itself: shown for reading, with no goal (the
  // issue's 1.2x was set against the sum above; against this higher floor it would be looser).
  for (const era of ERAS) {
    const row = at(`get_world${era.suffix}/pg`, 1);
    const floor = at(statementRowName("pg"), 1);
    if (row && floor) add(`get_world${era.suffix}/pg p50 ÷ ${statementRowName("pg")} p50 (issue 22, against the measured floor)`, 1, pairOf(row, floor, "p50"), NO_GOAL, `${fmt(row.p50, 2)} vs ${fmt(floor.p50, 2)} ms`);
  }
  // Issue 22: with Redis (sessions, limits, bus) against the same server counting in process.
  // Floor: the bare route spending a budget through each server's limiter (ceiling+limiter), the
  // same ratio, measured at every c; one floor for both eras (the route has no era).
  for (const era of ERAS) {
    for (const c of CONFIG.concurrencies) {
      const redis = at(`tools/call+limits:redis${era.suffix}`, c);
      const memory = at(`tools/call+limits:memory${era.suffix}`, c);
      const floor = pairOf(at(limiterRowName("redis"), c), at(limiterRowName("memory"), c), "p50");
      if (redis && memory) add(`tools/call+limits:redis${era.suffix} p50 ÷ tools/call+limits:memory${era.suffix} p50 (Redis sessions, limits, bus vs in process)`, c, pairOf(redis, memory, "p50"), atMost(GOALS.redisP50), `${fmt(redis.p50, 2)} vs ${fmt(memory.p50, 2)} ms`, floor);
    }
  }
  // The same at c=1 against its parts timed apart: the in-process row's p50 plus the limiter's
  // Redis call alone (cells/limiter-cell.mjs). Floor: ceiling+limiter:redis against the same sum
  // taken for the bare route (ceiling+limiter:memory + the call alone).
  const limiterAlone = at(REDIS_LIMITER, 1);
  for (const era of ERAS) {
    const redis = at(`tools/call+limits:redis${era.suffix}`, 1);
    const memory = at(`tools/call+limits:memory${era.suffix}`, 1);
    if (redis && memory && limiterAlone) {
      const floor = p50OverSum(at(limiterRowName("redis"), 1), [at(limiterRowName("memory"), 1), limiterAlone]);
      add(`tools/call+limits:redis${era.suffix} p50 ÷ (tools/call+limits:memory${era.suffix} p50 + ${REDIS_LIMITER} p50) (issue 22)`, 1, p50OverSum(redis, [memory, limiterAlone]), atMost(GOALS.redisP50), `${fmt(redis.p50, 2)} vs ${fmt(memory.p50, 2)} + ${fmt(limiterAlone.p50, 3)} ms`, floor);
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
    add("cold start: spawn → first good tools/list ÷ spawn → first good ceiling answer", "—", pairs?.start, atMost(GOALS.coldStart), pairs ? `${fmt(pairs.start.ours)} vs ${fmt(pairs.start.ceiling)} ms; CPU by then ${fmt(pairs.cpuMs.ours)} vs ${fmt(pairs.cpuMs.ceiling)} ms${n}` : cold.error ?? "");
    add("RSS after warm-up: our server ÷ a server that served only the ceiling", "—", pairs?.rss, atMost(GOALS.rss), pairs ? `${fmt(pairs.rss.ours / 1024, 1)} vs ${fmt(pairs.rss.ceiling / 1024, 1)} MiB${n}` : cold.error ?? "");
  }
  return out;
}

/** The summary table of the issue's targets. */
export function targetsTable(rows, cold) {
  const lines = [
    "| target | c | measured | detail | per-round median [min–max] | goal | result | server-CPU view: CPU/req ratio, per-round [min–max], verdict | floor (ceiling+body; get_world: ceiling+statement; Redis: ceiling+limiter), per-round [min–max], verdict |",
    "|---|--:|--:|---|--:|--:|---|--:|--:|",
  ];
  const verdict = (value, goal) => (!Number.isFinite(value) ? "not measured" : !goal.ok ? "—" : goal.ok(value) ? "pass" : "**miss**");
  // A side view of a target (server CPU, floor): its ratio, per-round [min–max] and verdict.
  const sideView = (ratio, goal) => (ratio ? `${fmt(ratio.value, 2)}x ${fmtSpread(ratio.spread).replace(/^[^ ]+ /, "")} ${verdict(ratio.value, goal)}` : "");
  for (const t of targetRows(rows, cold)) {
    const value = t.pair?.value;
    lines.push(`| ${t.target} | ${t.c} | ${Number.isFinite(value) ? `**${fmt(value, t.unit ? 1 : 2)}${t.unit ? ` ${t.unit}` : "x"}**` : "n/a"} | ${t.detail} | ${fmtSpread(t.pair?.spread)} | ${t.goal.text} | ${verdict(value, t.goal)} | ${sideView(t.pair?.cpu, t.goal)} | ${sideView(t.floor, t.goal)} |`);
  }
  return lines;
}
