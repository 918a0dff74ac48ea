/** The bench itself, on the Node run.mjs chose: prepare, warm up, time, report, clean up. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { measureColdStarts, measureFirstDataCalls } from "../cells/cold-start.mjs";
import { FLOOR_STREAMS_SERVER, IDLE_SERVER, IDLE_STREAMS, idleStreamsLines, measureIdleStreams } from "../cells/idle-streams.mjs";
import { machine } from "../cells/proc.mjs";
import { measureRedisTrips, REDIS_TRIPS, redisTripsLines } from "../cells/redis-trips.mjs";
import { defineSystems } from "../cells/systems.mjs";
import { COLD_START, CONFIG, PROFILE_DIR, PROFILE_NAME, ROOT } from "../config.mjs";
import { renderMarkdown } from "../report/markdown.mjs";
import { fmt, summarize } from "../report/stats.mjs";
import { cleanUp } from "./cleanup.mjs";
import { runRounds, warmUp } from "./rounds.mjs";
import { DATABASES } from "../servers/catalog.mjs";
import { ensureBuild, servers, startServer, writeProfileSidecar } from "../servers/lifecycle.mjs";
import { prepareDatabases, prepareMcpHandlerIfNeeded, prepareRedisIfNeeded, startServers } from "../servers/prepare.mjs";

/** The runner: warm-up, then interleaved rounds with the order rotated, cold starts, the report. */
async function main() {
  const started = Date.now();
  const loadavg = os.loadavg()[0].toFixed(2);
  let { systems, coldStart: withColdStart, extras } = defineSystems();
  const overHttp = systems.some((s) => !s.direct) || withColdStart || extras.size > 0;
  const staleFiles = overHttp ? ensureBuild() : [];
  const buildId = overHttp ? fs.readFileSync(path.join(ROOT, CONFIG.distDir, "BUILD_ID"), "utf8").trim() : undefined;
  const context = {};
  systems = await prepareMcpHandlerIfNeeded(systems, context);
  // Redis round trips are counted on limits-redis; the idle streams open on a server of their own.
  const extraServers = [...(extras.has(REDIS_TRIPS) ? ["limits-redis"] : []), ...(extras.has(IDLE_STREAMS) ? [IDLE_SERVER, FLOOR_STREAMS_SERVER] : [])];
  const asSystems = extraServers.map((server) => ({ name: server, server }));
  context.redis = await prepareRedisIfNeeded([...systems, ...asSystems]); // before the seeding: a missing Redis fails fast
  // The cold starts run the main server's settings: its database too.
  context.databases = await prepareDatabases([...systems, ...asSystems, ...(withColdStart ? [{ name: COLD_START, db: "pg", direct: true }] : [])]);
  systems = await startServers(systems, context);
  for (const key of extraServers) if (!servers.has(key)) await startServer(key, context);

  const cells = [];
  const estimate = CONFIG.concurrencies.length * systems.length * (CONFIG.rounds * CONFIG.seconds + CONFIG.warmupSeconds);
  console.log(`[bench] ${systems.length} systems, ${CONFIG.rounds} rounds x ${CONFIG.seconds} s, c=${CONFIG.concurrencies.join(",")}: ~${Math.round(estimate)} s`);

  systems = await warmUp(systems, context);
  const share = await runRounds(systems, context, cells);

  // Cells that are not rows: a failure is reported in their section, not fatal to the run.
  const extraSections = [];
  const section = async (title, measure, render) => {
    try {
      extraSections.push([title, "", ...render(await measure(context))]);
    } catch (err) {
      console.error(`[bench] ${title.slice(3)}: failed: ${err?.message ?? err}`);
      extraSections.push([title, "", `**Not measured:** ${String(err?.message ?? err).split("\n")[0]}`]);
    }
  };
  if (extras.has(REDIS_TRIPS)) await section("## Redis commands per request kind", measureRedisTrips, redisTripsLines);
  if (extras.has(IDLE_STREAMS)) await section("## Idle streams on one instance", measureIdleStreams, idleStreamsLines);
  const cold = withColdStart ? { ...(await measureColdStarts(context)), firstData: await measureFirstDataCalls(context) } : undefined;

  const rows = summarize(systems, cells);
  const markdown = renderMarkdown(rows, {
    date: new Date().toISOString(),
    machine: machine(),
    buildId,
    servers: [...servers.keys()],
    databases: DATABASES.filter((d) => context.databases.has(d.key)).map((d) => ({ ...d, description: context.databases.get(d.key).description, queries: context.databases.get(d.key).worker.queries })),
    redis: context.redis?.description,
    mcpHandlerApp: context.mcpHandlerApp,
    loadavg,
    loadavgEnd: os.loadavg()[0].toFixed(2),
    share,
    staleFiles,
    cold,
    extraSections,
    note: process.env.BENCH_NOTE,
    wallSeconds: (Date.now() - started) / 1000,
  });
  console.log(`\n${markdown}`);
  fs.writeFileSync(CONFIG.out, markdown);
  console.log(`[bench] wrote ${path.relative(ROOT, CONFIG.out)} (${fmt((Date.now() - started) / 1000)} s)`);
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  console.error(`[bench] failed: ${err?.stack ?? err}`);
  for (const server of servers.values()) {
    if (server.log.length) console.error(`[bench] server ${server.key} log tail:\n${server.log.slice(-20).join("\n")}`);
  }
} finally {
  await cleanUp();
  if (CONFIG.cpuProf) {
    for (const server of servers.values()) writeProfileSidecar(server);
  }
}
process.exit(exitCode);
