/** The runner's timed part: the warm-up, then the interleaved rounds. */
import { runCell } from "../cells/http-cell.mjs";
import { cpuShare, cpuShareSnapshot } from "../cells/proc.mjs";
import { CONFIG } from "../config.mjs";
import { ascending, fmt, percentile } from "../report/stats.mjs";
import { serverKeyOf } from "../servers/catalog.mjs";
import { servers } from "../servers/lifecycle.mjs";
import { skipGroup } from "./skipped.mjs";

/**
 * Warm-up: JIT, route bundles, database connections and caches reach steady state before anything
 * counts. A reference stack that answers wrongly here is skipped (with the reason), not fatal.
 * Returns the systems left.
 */
export async function warmUp(systems, context) {
  if (CONFIG.warmupSeconds > 0) {
    for (const c of CONFIG.concurrencies) {
      for (const s of [...systems]) {
        if (!systems.includes(s)) continue;
        const w = await runCell(s, context, c, CONFIG.warmupSeconds);
        if (w.errors === 0) continue;
        const why = `warm-up ${s.name} c=${c}: ${w.errors} errors, first: ${w.firstError}`;
        if (!s.optional) throw new Error(why);
        systems = skipGroup(systems, s.optional, why);
      }
    }
  }
  return systems;
}

/**
 * The timed rounds: every system at every c, the order rotated each round; each cell goes to
 * `cells` and its window to its server (for profiles). Returns this bench's share of the machine.
 */
export async function runRounds(systems, context, cells) {
  const share0 = cpuShareSnapshot();
  const width = Math.max(...systems.map((s) => s.name.length));
  for (let round = 0; round < CONFIG.rounds; round++) {
    // Rotate the order so no system always runs first (or right after the heaviest one).
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const c of CONFIG.concurrencies) {
      for (const s of order) {
        const { window, ...r } = await runCell(s, context, c, CONFIG.seconds);
        // HTTP cells only (a direct cell runs in its database's worker, not in a server).
        if (window) servers.get(serverKeyOf(s)).windows.push({ system: s.name, concurrency: c, round, ...window, requests: r.ok + r.errors });
        cells.push({ system: s.name, concurrency: c, round, ...r });
        const rps = ((r.ok + r.errors) / r.wallMs) * 1000;
        const sorted = ascending(r.latencies);
        const ms = (p) => fmt(percentile(sorted, p), 2).padStart(7);
        console.log(
          `[bench] round ${round + 1}/${CONFIG.rounds} c=${String(c).padStart(2)} ${s.name.padEnd(width)} ${fmt(rps).padStart(7)} req/s  p50 ${ms(50)} ms  p99 ${ms(99)} ms  server ${fmt(r.serverMs / (r.ok + r.errors), 3)} ms/req${r.errors ? `  ${r.errors} ERRORS` : ""}`,
        );
      }
    }
  }
  return cpuShare(share0, cpuShareSnapshot());
}
