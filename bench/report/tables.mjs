/** RESULTS.md's tables other than the targets: all rows, databases, limiter, mcp-handler, node:http, more requests, cold start. */
import { ERAS } from "../cells/client.mjs";
import { COLD_PROBES, WARM_CALLS } from "../cells/cold-start.mjs";
import { NODE_RAW } from "../cells/systems.mjs";
import { CONFIG } from "../config.mjs";
import { DATABASES, LIMITERS } from "../servers/catalog.mjs";
import { fmt, fmtSignedSpread, fmtSpread, median, pairOf, signed, spreadOf, times } from "./stats.mjs";

/** The main table: throughput and CPU of every system. */
export function throughputTable(rows) {
  const lines = [
    "| system | c | req/s | vs ceiling | per-round median [min–max] | vs ceiling+body | vs ceiling+page | p50 ms | p99 ms | server CPU ms/req | CPU vs ceiling | client CPU ms/req | requests | errors |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of rows) {
    const isCeiling = r.system === `${r.nodePrefix}ceiling`;
    const ratio = isCeiling ? "1.00x" : times(r.ratio, true);
    const spread = isCeiling ? "" : fmtSpread(r.ratioSpread);
    const errors = r.errors > 0 ? `**${r.errors} ⚠**` : "0";
    lines.push(
      `| ${r.system} | ${r.concurrency} | ${fmt(r.rps)} | ${ratio} | ${spread} | ${times(r.ratioBody)} | ${r.system.includes("tools/list") ? times(r.ratioPage) : ""} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${times(r.cpuRatio)} | ${fmt(r.clientCpuPerReq, 3)} | ${fmt(r.requests)} | ${errors} |`,
    );
  }
  return lines;
}

/** Rows the database table shows for reference: the bare route, and a tools/call that reads no database. */
export const REFERENCE_ROWS = new Set(["ceiling", "tools/call", "tools/call@2026"]);

/** The database table: get_world and list_worlds latency beside the ceiling's, per concurrency. */
export function databaseTable(rows) {
  const lines = [
    "| system | database | c | p50 ms | p50 vs ceiling p50 | per-round median [min–max] | p99 ms | p99 vs ceiling p99 | req/s |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of rows.filter((row) => REFERENCE_ROWS.has(row.system) || row.db)) {
    const database = DATABASES.find((d) => d.key === r.db)?.label ?? "—";
    const p50Ratio = r.system === "ceiling" ? "1.00x" : times(r.p50Ratio, true);
    const spread = r.system === "ceiling" ? "" : fmtSpread(r.p50Spread);
    lines.push(`| ${r.system} | ${database} | ${r.concurrency} | ${fmt(r.p50, 2)} | ${p50Ratio} | ${spread} | ${fmt(r.p99, 2)} | ${times(r.p99Ratio)} | ${fmt(r.rps)} |`);
  }
  return lines;
}

/** The rows of the rate-limiter table at one c and era: limits off (the plain tools/call), then each limiter's. */
export function limiterRows(rows, c, era) {
  const at = (name) => rows.find((r) => r.system === name && r.concurrency === c);
  const limited = LIMITERS.map((limiter) => ({ limiter, row: at(`tools/call+limits:${limiter}${era.suffix}`) })).filter((x) => x.row);
  return limited.length === 0 ? [] : [{ limiter: "off", row: at(`tools/call${era.suffix}`) }, ...limited].filter((x) => x.row);
}

/**
 * What the rate limiter adds to a request: the same tools/call with limits off, counted in process
 * and counted in Redis, and the differences to limits off (overall and per round, same conditions).
 */
export function limiterTable(rows) {
  const lines = [
    "| system | limiter | c | p50 ms | p99 ms | server CPU ms/req | Redis CPU ms/req | added p50 ms | per-round added p50 median [min – max] | added p99 ms | added server CPU ms/req | per-round added CPU median [min – max] | req/s | errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const era of ERAS) {
      const group = limiterRows(rows, c, era);
      const off = group.find((x) => x.limiter === "off")?.row;
      for (const { limiter, row: r } of group) {
        const vsOff = off && r !== off;
        const perRound = (a, b) => (vsOff ? spreadOf(a.map((v, i) => v - b[i])) : undefined);
        lines.push(
          `| ${r.system} | ${limiter} | ${c} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${fmt(r.redisCpuPerReq, 3)} | ` +
            `${vsOff ? `**${signed(r.p50 - off.p50, 2)}**` : ""} | ${fmtSignedSpread(perRound(r.roundP50, off?.roundP50), 2)} | ${vsOff ? signed(r.p99 - off.p99, 2) : ""} | ` +
            `${vsOff ? `**${signed(r.cpuPerReq - off.cpuPerReq, 3)}**` : ""} | ${fmtSignedSpread(perRound(r.roundCpuPerReq, off?.roundCpuPerReq), 3)} | ${fmt(r.rps)} | ${r.errors > 0 ? `**${r.errors} ⚠**` : "0"} |`,
        );
      }
    }
  }
  return lines;
}

/** One line per c and limiter: the added p50 and CPU per request against limits off. */
export function limiterLines(rows) {
  return CONFIG.concurrencies.flatMap((c) =>
    ERAS.flatMap((era) => {
      const group = limiterRows(rows, c, era);
      const off = group.find((x) => x.limiter === "off")?.row;
      if (!off) return [];
      return group
        .filter((x) => x.row !== off)
        .map(({ limiter, row }) => {
          const redisCpu = limiter === "redis" && Number.isFinite(row.redisCpuPerReq) ? `, plus ${fmt(row.redisCpuPerReq - off.redisCpuPerReq, 3)} ms of Redis's` : "";
          return `- c=${c}, tools/call${era.suffix}, limits in ${limiter}: ${signed(row.p50 - off.p50, 2)} ms p50 (${fmt(off.p50, 2)} → ${fmt(row.p50, 2)}), ${signed(row.cpuPerReq - off.cpuPerReq, 3)} ms server CPU per request${redisCpu}`;
        });
    }),
  );
}

/** A sample answer: its format and size. */
export const answerOf = (row) => (row?.sample ? `${row.sample.format.toUpperCase()}, ${fmt(row.sample.bytes)} B` : "");

/** Our rows beside mcp-handler's, per request, era and c. */
export function mcpHandlerTable(rows) {
  const lines = [
    "| request | c | WorldCrafter req/s | mcp-handler req/s | ours ÷ theirs | per-round median [min–max] | p50 ms ours / theirs | p99 ms ours / theirs | server CPU ms/req ours / theirs | answer ours / theirs |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const theirs of rows.filter((r) => r.concurrency === c && r.system.startsWith("mcp-handler "))) {
      const system = theirs.system.slice("mcp-handler ".length);
      const ours = rows.find((r) => r.system === system && r.concurrency === c);
      const pair = pairOf(ours, theirs);
      lines.push(
        `| ${system} | ${c} | ${fmt(ours?.rps)} | ${fmt(theirs.rps)} | ${pair ? `**${fmt(pair.value, 2)}x**` : ""} | ${fmtSpread(pair?.spread)} | ${fmt(ours?.p50, 2)} / ${fmt(theirs.p50, 2)} | ${fmt(ours?.p99, 2)} / ${fmt(theirs.p99, 2)} | ${fmt(ours?.cpuPerReq, 3)} / ${fmt(theirs.cpuPerReq, 3)} | ${answerOf(ours)} / ${answerOf(theirs)} |`,
      );
    }
  }
  return lines;
}

/** The core on node:http beside raw node:http, and beside the same request on next start. */
export function nodeHttpTable(rows) {
  const lines = [
    "| system | c | req/s | ÷ node:http raw | per-round median [min–max] | p50 ms | p99 ms | server CPU ms/req | CPU − raw ms/req | same request on `next start` req/s | node:http ÷ next start |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const c of CONFIG.concurrencies) {
    const raw = rows.find((r) => r.system === NODE_RAW && r.concurrency === c);
    for (const r of rows.filter((row) => row.concurrency === c && row.system.startsWith("node:http"))) {
      const isRaw = r.system === NODE_RAW;
      const pair = isRaw ? undefined : pairOf(r, raw);
      const onNext = rows.find((row) => row.concurrency === c && row.system === (isRaw ? "ceiling" : r.system.slice("node:http core ".length)));
      lines.push(
        `| ${r.system} | ${c} | ${fmt(r.rps)} | ${isRaw ? "1.00x" : pair ? `**${fmt(pair.value, 2)}x**` : ""} | ${fmtSpread(pair?.spread)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${isRaw || !raw ? "" : signed(r.cpuPerReq - raw.cpuPerReq, 3)} | ${fmt(onNext?.rps)}${isRaw && onNext ? " (ceiling)" : ""} | ${onNext ? times(r.rps / onNext.rps) : ""} |`,
      );
    }
  }
  return lines;
}

/** The rows the issue added for more MCP requests, beside the tools/call of the same era. */
export const MORE_REQUESTS = ["initialize", "server/discover@2026", "draft_world_outline+progress", "draft_world_outline+progress@2026", "create_world/pg", "create_world@2026/pg"];

export function moreRequestsTable(rows) {
  const lines = [
    "| system | c | req/s | p50 ms | p99 ms | server CPU ms/req | CPU vs tools/call (same era) | vs ceiling req/s | answer |",
    "|---|--:|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const r of rows.filter((row) => row.concurrency === c && MORE_REQUESTS.includes(row.system))) {
      const call = rows.find((row) => row.concurrency === c && row.system === (r.system.includes("@2026") ? "tools/call@2026" : "tools/call"));
      lines.push(`| ${r.system} | ${c} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${call ? times(r.cpuPerReq / call.cpuPerReq) : ""} | ${times(r.ratio)} | ${answerOf(r)} |`);
    }
  }
  return lines;
}

/** Cold starts and memory, every run. */
export function coldStartTable(cold) {
  const lines = ["| process | first answer | time to it, median ms | every run, ms | CPU used by then, median ms | every run, ms | RSS after warm-up, median MiB | every run, MiB |", "|---|---|--:|---|--:|---|--:|---|"];
  for (const [kind, label] of [["ceiling", "only the ceiling"], ["tools/list", "our MCP endpoint"]]) {
    const runs = cold.runs[kind];
    lines.push(
      `| \`next start\`, ${label} | ${COLD_PROBES[kind].label} | ${fmt(median(runs.map((r) => r.startMs)))} | ${runs.map((r) => fmt(r.startMs)).join(", ")} | ${fmt(median(runs.map((r) => r.cpuMs)))} | ${runs.map((r) => fmt(r.cpuMs)).join(", ")} | ${fmt(median(runs.map((r) => r.rssKb)) / 1024, 1)} | ${runs.map((r) => fmt(r.rssKb / 1024, 1)).join(", ")} |`,
    );
  }
  return lines;
}

/**
 * The same rows on Node 24 and on the machine's Node (the node20:… twin server): absolute req/s,
 * server CPU and p50 side by side, and each one's ratio to its own floor.
 */
export function nodeVersionsTable(rows, prefix) {
  const lines = [
    `| row | c | req/s Node 24 | req/s ${prefix.slice(0, -1)} | Node 24 ÷ ${prefix.slice(0, -1)} | per-round median [min–max] | p50 ms 24 / ${prefix.slice(4, -1)} | server CPU ms/req 24 / ${prefix.slice(4, -1)} | vs its floor 24 / ${prefix.slice(4, -1)} |`,
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  const floorOf = (r) => (r.system.includes("tools/list") ? r.ratioPage : r.system.includes("tools/call") ? r.ratioBody : undefined);
  for (const c of CONFIG.concurrencies) {
    for (const other of rows.filter((r) => r.concurrency === c && r.nodePrefix === prefix)) {
      const name = other.system.slice(prefix.length);
      const primary = rows.find((r) => r.concurrency === c && r.system === name);
      const pair = pairOf(primary, other);
      lines.push(
        `| ${name} | ${c} | ${fmt(primary?.rps)} | ${fmt(other.rps)} | ${pair ? `**${fmt(pair.value, 2)}x**` : ""} | ${fmtSpread(pair?.spread)} | ${fmt(primary?.p50, 2)} / ${fmt(other.p50, 2)} | ${fmt(primary?.cpuPerReq, 3)} / ${fmt(other.cpuPerReq, 3)} | ${primary && floorOf(primary) ? `${times(floorOf(primary))} / ${times(floorOf(other))}` : ""} |`,
      );
    }
  }
  return lines;
}

/** The first data tool call after a cold start against warm calls on the same process, every run. */
export function firstDataCallTable(firstData) {
  const { runs, afterList } = firstData;
  const lines = ["| measure | median ms | every run, ms |", "|---|--:|---|"];
  const row = (label, values) => values.length > 0 && lines.push(`| ${label} | ${fmt(median(values), 1)} | ${values.map((v) => fmt(v, 1)).join(", ")} |`);
  row("spawn → listening (TCP)", runs.map((r) => r.listenMs));
  row("A. get_world@2026/pg as the process's first request", runs.map((r) => r.firstMs));
  row(`A. warm get_world@2026/pg (median of the next ${WARM_CALLS})`, runs.map((r) => r.warmMs));
  row("**A. first − warm**", runs.map((r) => r.firstMs - r.warmMs));
  row("B. tools/list@2026 as the process's first request (the route module loads)", afterList.map((r) => r.listMs));
  row("B. then get_world@2026/pg: the first data call on a loaded route", afterList.map((r) => r.firstMs));
  row(`B. warm get_world@2026/pg (median of the next ${WARM_CALLS})`, afterList.map((r) => r.warmMs));
  row("**B. first data call − warm**", afterList.map((r) => r.firstMs - r.warmMs));
  const ceilingFirst = firstData.ceilingFirst ?? [];
  row("C. the bare ceiling route as the process's first request (the floor under A)", ceilingFirst.map((r) => r.firstMs));
  row(`C. warm ceiling (median of the next ${WARM_CALLS})`, ceilingFirst.map((r) => r.warmMs));
  row("**C. the framework's own first request − warm**", ceilingFirst.map((r) => r.firstMs - r.warmMs));
  row("**A − C: what our route adds to a first request**", runs.slice(0, ceilingFirst.length).map((r, i) => r.firstMs - r.warmMs - (ceilingFirst[i].firstMs - ceilingFirst[i].warmMs)));
  return lines;
}
