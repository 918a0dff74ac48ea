// Start the real production server (`next start`) on a free loopback port and wait until it answers.
// Shared by the vitest global setup, the conformance runner and the benchmark (START_SCRIPT).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;

/** `npm start`'s script: `next start` with the Node settings it needs (see the script). */
export const START_SCRIPT = join(ROOT, "scripts", "start.mjs");

export function distDir() {
  return process.env.NEXT_DIST_DIR ?? ".next";
}

export function hasBuild() {
  return existsSync(join(ROOT, distDir(), "BUILD_ID"));
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Every test client connects from 127.0.0.1, so every anonymous one is the same caller to the
 * server (its address is the socket's): the per-caller session cap and initialize budget would
 * make independent suites evict each other. Suites that test those limits set their own values.
 */
const LOOPBACK_CLIENTS = { MCP_MAX_SESSIONS_PER_CALLER: "100000", MCP_RATE_LIMIT_INITIALIZE: "1000000" };

/**
 * Spawns `node scripts/start.mjs` (what `npm start` runs: `next start` in that process) directly,
 * not via npm or npx, so the child pid is the server itself: the benchmark reads its CPU time from
 * /proc.
 */
export async function startNextServer({ env = {}, port, readyPath = "/api/mcp", timeoutMs = 60_000, quiet = true } = {}) {
  if (!hasBuild()) throw new Error(`No production build in ${distDir()}: run \`npx next build\` first`);
  port ??= await freePort();
  const child = spawn(process.execPath, [START_SCRIPT, "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", MCP_LOG_REQUESTS: "0", ...LOOPBACK_CLIENTS, ...env },
    stdio: ["ignore", quiet ? "ignore" : "inherit", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}: ${stderr}`);
    try {
      const res = await fetch(url + readyPath, { method: "OPTIONS" });
      if (res.status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`next start did not answer within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((resolve) => {
        const t = setTimeout(() => {
          child.kill("SIGKILL");
          resolve();
        }, 5_000);
        child.once("exit", () => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };
}
