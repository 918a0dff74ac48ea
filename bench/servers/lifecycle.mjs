/** Starting and stopping servers: the build check, spawn, readiness, sessions, and the last-resort kill. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { openSession, request, sleep, stubSession } from "../cells/client.mjs";
import { CEILING_PATH, CONFIG, HOST, PROFILE_DIR, PROFILE_NAME, ROOT } from "../config.mjs";
import { cleanUp, cleanups } from "../runner/cleanup.mjs";
import { SECONDARY_NODE } from "../runtime.mjs";
import { LIMIT_BUDGETS, RUNTIMES, serverEnv, SERVERS } from "./catalog.mjs";
import { devToken, SUBJECTS } from "./auth-keys.mjs";

/**
 * Running servers by key: { key, runtime, child, pid, port, log: string[], exited, served, budgets,
 * session (2025-11-25 headers, anonymous), identities: { reader|writer: { bearer, session } } }.
 */
export const servers = new Map();
/** Short-lived servers (the cold starts): not in the report's server list, still killed on exit. */
export const transient = new Set();

export function ensureBuild() {
  const buildId = path.join(ROOT, CONFIG.distDir, "BUILD_ID");
  if (!fs.existsSync(buildId)) {
    console.log(`[bench] ${path.relative(ROOT, buildId)} missing: running next build`);
    const r = spawnSync("npx", ["next", "build"], { cwd: ROOT, stdio: "inherit", env: process.env });
    if (r.status !== 0) throw new Error(`next build failed (exit ${r.status})`);
    return [];
  }
  // The build is what gets measured; say so when sources changed after it (others edit lib/).
  const builtAt = fs.statSync(buildId).mtimeMs;
  const newer = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && fs.statSync(path.join(ROOT, rel)).mtimeMs > builtAt) newer.push(rel);
    }
  };
  for (const dir of ["lib", "app"]) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  if (newer.length > 0) {
    console.warn(`[bench] warning: ${newer.length} source file(s) changed after the build (${newer.slice(0, 3).join(", ")}…); measuring the existing build`);
  }
  return newer;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a server process (not yet ready). detached: its own process group, so clean-up can
 * signal it and anything it spawned. The caller registers it (servers map or a transient one).
 */
export function spawnServer(key, { runtime, env, port, context, profile = true, execPath = process.execPath }) {
  const { script, args, cwd, env: runtimeEnv } = RUNTIMES[runtime].command(context);
  const nodeArgs = [...CONFIG.nodeFlags];
  if (CONFIG.cpuProf && profile) {
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${PROFILE_NAME}_${key}.cpuprofile`);
  }
  const child = spawn(execPath, [...nodeArgs, script, ...args(port)], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, ...runtimeEnv, BENCH_NODE_HOST: HOST, BENCH_NODE_PORT: String(port) },
  });
  const log = [];
  const keep = (chunk) => {
    // Keep the tail only, for diagnostics; reading also stops a full pipe from stalling the server.
    log.push(...chunk.toString().split("\n").filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const server = { key, runtime, child, pid: child.pid, port, log, exited: false, served: 0, windows: [] };
  child.on("exit", () => (server.exited = true));
  child.on("error", (err) => {
    log.push(`spawn error: ${err.message}`);
    server.exited = true;
  });
  return server;
}

/**
 * Starts server `key` and waits until it answers. Its limiter's budget per method (if it runs
 * one) is what its answers must carry. MCP servers get a token and a session per subject.
 */
export async function startServer(key, context) {
  const { runtime = "next", limiter, node } = SERVERS[key];
  const port = await freePort();
  const execPath = node === "secondary" ? SECONDARY_NODE.execPath : process.execPath;
  const server = spawnServer(key, { runtime, env: serverEnv(key, port, context), port, context, execPath });
  server.budgets = limiter ? LIMIT_BUDGETS : undefined;
  servers.set(key, server);
  cleanups.push(() => stopServer(server));
  const what = `${RUNTIMES[runtime].label} (${key})`;

  // Ready = the ceiling route answers 200 (also loads that route's bundle).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exited) throw new Error(`${what} exited early:\n${server.log.join("\n")}`);
    try {
      const r = await request(undefined, server, CEILING_PATH, "{}", {});
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready after 60 s:\n${server.log.join("\n")}`);
    await sleep(100);
  }
  if (RUNTIMES[runtime].mcp) {
    server.identities = {};
    for (const [name, subject] of Object.entries(SUBJECTS)) {
      const bearer = `Bearer ${await devToken(port, subject)}`;
      server.identities[name] = { bearer, session: await openSession(server, bearer) };
    }
    server.session = await openSession(server);
  } else {
    server.session = stubSession();
  }
  console.log(`[bench] ${what} ready on ${HOST}:${port} (pid ${server.pid}, Node ${node === "secondary" ? SECONDARY_NODE.version : process.version})${RUNTIMES[runtime].mcp ? `, session ${server.session["mcp-session-id"]}` : ""}`);
  return server;
}

/** With BENCH_CPU_PROF=1: <profile>.json beside a server's .cpuprofile, its timed windows (bench/profile-top.mjs reads it). */
export function writeProfileSidecar(server) {
  const base = path.join(PROFILE_DIR, `${PROFILE_NAME}_${server.key}`);
  fs.writeFileSync(`${base}.json`, JSON.stringify({ systems: CONFIG.systems ?? "all", server: server.key, requests: server.served, windows: server.windows }, null, 2));
  console.log(`[bench] profile: ${path.relative(ROOT, base)}.cpuprofile (${server.served} requests); node bench/profile-top.mjs ${path.relative(ROOT, base)}.cpuprofile`);
}

/** Stop a server: SIGTERM to its process group, SIGKILL if it lingers (profiles need a clean exit). */
export async function stopServer(server) {
  if (server.exited) return;
  const group = -server.pid;
  try {
    process.kill(group, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (!server.exited && Date.now() < deadline) await sleep(100);
  if (!server.exited) {
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

// Last resort if we die abruptly: synchronous kill of the servers' groups. (The db-workers exit by
// themselves when our end of their IPC channel closes; a schema left behind is named bench_….)
process.on("exit", () => {
  for (const server of [...servers.values(), ...transient]) {
    if (server.exited) continue;
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.error(`[bench] ${signal}: stopping servers, removing databases`);
    cleanUp().finally(() => process.exit(130));
  });
}
