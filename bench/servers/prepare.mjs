/** What the selected rows need before any timing: databases, Redis, the mcp-handler app, the servers. */
import path from "node:path";
import { CONFIG, ROOT } from "../config.mjs";
import { prepareMcpHandlerApp } from "../mcp-handler-app.mjs";
import { prepareRedis } from "../redis.mjs";
import { cleanups } from "../runner/cleanup.mjs";
import { skipGroup } from "../runner/skipped.mjs";
import { DATABASES, databasesOf, needsRedis, serverKeyOf, SERVERS } from "./catalog.mjs";
import { servers, startServer, stopServer } from "./lifecycle.mjs";

/** Migrates and seeds every database the selected systems use; returns them by key. */
export async function prepareDatabases(systems) {
  const databases = new Map();
  const needed = new Set(systems.flatMap(databasesOf));
  for (const db of DATABASES.filter((d) => needed.has(d.key))) {
    const started = Date.now();
    const prepared = await db.prepare();
    cleanups.push(() => prepared.cleanup());
    databases.set(db.key, prepared);
    console.log(`[bench] ${prepared.description}: seeded ${JSON.stringify(prepared.counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return databases;
}

/** Connects to the Redis the limits:redis rows count in, if any selected row does. */
export async function prepareRedisIfNeeded(systems) {
  if (!needsRedis(systems)) return undefined;
  const redis = await prepareRedis(CONFIG.redisUrl);
  cleanups.push(() => redis.close()); // registered before the servers': runs after they stopped
  console.log(`[bench] ${redis.description}`);
  return redis;
}

/** Installs and builds the mcp-handler app if a selected row needs it; on failure its rows are skipped. */
export async function prepareMcpHandlerIfNeeded(systems, context) {
  if (!systems.some((s) => !s.direct && SERVERS[serverKeyOf(s)].runtime === "mcp-handler")) return systems;
  try {
    const app = await prepareMcpHandlerApp();
    context.mcpHandlerApp = app;
    const list = Object.entries(app.versions).map(([pkg, v]) => `${pkg} ${v}`).join(", ");
    console.log(`[bench] mcp-handler app ${app.cached ? "cached" : "installed and built"} in ${path.relative(ROOT, app.dir)} (${list}; ${app.seconds.toFixed(1)} s)`);
    return systems;
  } catch (err) {
    return skipGroup(systems, "mcp-handler", `install/build failed: ${String(err?.message ?? err).split("\n")[0]}`);
  }
}

/**
 * Starts the servers the HTTP systems need (and only those), each on its database with its
 * limiter. A reference stack that does not start has its rows skipped; returns the systems left.
 */
export async function startServers(systems, context) {
  let left = systems;
  for (const key of new Set(systems.filter((s) => !s.direct).map(serverKeyOf))) {
    const optional = systems.filter((s) => !s.direct && serverKeyOf(s) === key).map((s) => s.optional);
    try {
      await startServer(key, context);
    } catch (err) {
      const group = optional[0];
      if (!group || optional.some((g) => g !== group)) throw err;
      if (servers.has(key)) await stopServer(servers.get(key));
      servers.delete(key);
      left = skipGroup(left, group, `server ${key} did not start: ${String(err?.message ?? err).split("\n").slice(0, 3).join(" ")}`);
    }
  }
  return left;
}
