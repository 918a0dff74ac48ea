/** Statistics over the cells: per-row aggregates, percentiles, per-round spreads, and number formats. */
import { CEILING_BODY, CEILING_PAGE, CONFIG } from "../config.mjs";

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const ascending = (values) => [...values].sort((a, b) => a - b);
export const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a");

/** Median, min and max of per-round ratios (same round = same machine conditions). */
export function spreadOf(ratios) {
  const sorted = ascending(ratios);
  return { median: percentile(sorted, 50), min: sorted[0], max: sorted[sorted.length - 1] };
}

export function summarize(systems, cells) {
  const rows = [];
  for (const c of CONFIG.concurrencies) {
    const byName = new Map();
    for (const s of systems) {
      const runs = cells.filter((x) => x.system === s.name && x.concurrency === c);
      const requests = runs.reduce((a, r) => a + r.ok + r.errors, 0);
      const wallMs = runs.reduce((a, r) => a + r.wallMs, 0);
      const latencies = ascending(runs.flatMap((r) => r.latencies));
      byName.set(s.name, {
        system: s.name,
        nodePrefix: s.nodePrefix ?? "",
        db: s.db,
        concurrency: c,
        rps: (requests / wallMs) * 1000,
        roundRps: runs.map((r) => ((r.ok + r.errors) / r.wallMs) * 1000),
        roundP50: runs.map((r) => percentile(ascending(r.latencies), 50)),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpuPerReq: runs.reduce((a, r) => a + r.serverMs, 0) / requests,
        roundCpuPerReq: runs.map((r) => r.serverMs / (r.ok + r.errors)),
        redisCpuPerReq: runs.reduce((a, r) => a + r.redisMs, 0) / requests,
        clientCpuPerReq: runs.reduce((a, r) => a + r.clientMs, 0) / requests,
        requests,
        errors: runs.reduce((a, r) => a + r.errors, 0),
        firstError: runs.find((r) => r.firstError)?.firstError,
        sample: runs.find((r) => r.sample)?.sample,
      });
    }
    for (const row of byName.values()) {
      // Each row against the references on its own Node (node20:… rows against node20:ceiling).
      const ceiling = byName.get(`${row.nodePrefix}ceiling`);
      const ceilingBody = byName.get(`${row.nodePrefix}${CEILING_BODY}`);
      const ceilingPage = byName.get(`${row.nodePrefix}${CEILING_PAGE}`);
      if (ceilingBody) row.ratioBody = row.rps / ceilingBody.rps;
      if (ceilingPage) row.ratioPage = row.rps / ceilingPage.rps;
      if (ceiling) {
        row.ratio = row.rps / ceiling.rps;
        // Per-round ratios resist a noisy round (other work on the machine); their spread shows
        // how much to trust the aggregate.
        row.ratioSpread = spreadOf(row.roundRps.map((r, i) => r / ceiling.roundRps[i]));
        row.cpuRatio = row.cpuPerReq / ceiling.cpuPerReq;
        row.p50Ratio = row.p50 / ceiling.p50;
        row.p99Ratio = row.p99 / ceiling.p99;
        row.p50Spread = spreadOf(row.roundP50.map((p, i) => p / ceiling.roundP50[i]));
      }
      rows.push(row);
    }
  }
  return rows;
}

export const fmtSpread = (s) => (s ? `${fmt(s.median, 2)} [${fmt(s.min, 2)}–${fmt(s.max, 2)}]` : "");
/** A ratio as "1.23x"; empty when there is nothing to compare with (its reference was not selected). */
export const times = (n, bold = false) => (n === undefined ? "" : bold ? `**${fmt(n, 2)}x**` : `${fmt(n, 2)}x`);

/** A difference with its sign: "+0.12", "-0.03". */
export const signed = (n, digits) => (Number.isFinite(n) ? `${n >= 0 ? "+" : "-"}${fmt(Math.abs(n), digits)}` : "n/a");
export const fmtSignedSpread = (s, digits) => (s ? `${signed(s.median, digits)} [${signed(s.min, digits)} – ${signed(s.max, digits)}]` : "");

/**
 * a ÷ b overall, and per round (the same round: the same machine conditions). For req/s also the
 * server-CPU view: b's CPU per request ÷ a's, the req/s ratio two CPU-bound servers would show
 * with nothing else on the machine (a client parsing bigger answers, neighbours' work: not in it).
 */
export function pairOf(a, b, metric = "rps") {
  if (!a || !b) return undefined;
  if (metric === "p50") return { value: a.p50 / b.p50, spread: spreadOf(a.roundP50.map((p, i) => p / b.roundP50[i])) };
  return {
    value: a.rps / b.rps,
    spread: spreadOf(a.roundRps.map((r, i) => r / b.roundRps[i])),
    cpu: { value: b.cpuPerReq / a.cpuPerReq, spread: spreadOf(a.roundCpuPerReq.map((cpu, i) => b.roundCpuPerReq[i] / cpu)) },
  };
}

export const median = (values) => percentile(ascending(values), 50);
