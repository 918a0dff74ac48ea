/**
 * Which Node runs the bench. By default Node 24 (Vercel's default runtime): the Node 24 that CI's
 * second test leg uses, installed from the npm registry into tests/node24 (one copy for both), as
 * tests/conformance/run.mjs installs its Node 22. When `npm run bench` starts on another Node,
 * run.mjs re-runs itself on Node 24 — client, servers, database workers and cold starts alike —
 * and the Node it was started with answers a few secondary rows (`node20:…`) on a twin server.
 *
 *   BENCH_NODE=24        (default) Node 24 first, the machine's Node as secondary rows
 *   BENCH_NODE=machine   everything on the Node that started the bench, no secondary rows
 *   BENCH_SECONDARY=0    Node 24 alone (no `node20:…` rows)
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./config.mjs";

export const NODE24_DIR = path.join(ROOT, "tests", "node24");
export const NODE24_BIN = path.join(NODE24_DIR, "node_modules", ".bin", "node");
const PRIMARY_MAJOR = 24;

/** The machine's Node, as passed down by the run that re-ran itself on Node 24 (else undefined). */
export const SECONDARY_ENV = "BENCH_SECONDARY_NODE";

function choice() {
  const raw = process.env.BENCH_NODE ?? "24";
  if (raw !== "24" && raw !== "machine") throw new Error(`BENCH_NODE must be 24 or machine, got "${raw}"`);
  return raw;
}

/** tests/node24's Node, installed on first use (`npm ci` there, as CI does). */
export function ensureNode24() {
  if (existsSync(NODE24_BIN)) return NODE24_BIN;
  console.log(`[bench] installing Node ${PRIMARY_MAJOR} from the npm registry into ${path.relative(ROOT, NODE24_DIR)}`);
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: NODE24_DIR, stdio: "inherit" });
  if (r.status !== 0 || !existsSync(NODE24_BIN)) throw new Error(`installing Node ${PRIMARY_MAJOR} into ${NODE24_DIR} failed`);
  return NODE24_BIN;
}

/**
 * Re-runs `script` on Node 24 when the bench is to run there and this process is not it; resolves
 * with the child's exit code then (the caller exits with it), or undefined to go on in this process.
 * Signals reach the child through the shared process group; SIGTERM sent to us alone is passed on.
 */
export async function reexecOnNode24(script) {
  if (choice() === "machine" || Number(process.versions.node.split(".")[0]) === PRIMARY_MAJOR) return undefined;
  const node = ensureNode24();
  console.log(`[bench] re-running on Node ${execFileSync(node, ["-v"]).toString().trim()} (${path.relative(ROOT, node)}); ${process.env.BENCH_SECONDARY === "0" ? "no secondary rows (BENCH_SECONDARY=0)" : `${process.version} answers the secondary rows`}`);
  const child = spawn(node, [script, ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, [SECONDARY_ENV]: process.execPath } });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

/**
 * The secondary Node, if there is one that differs from this process's major version:
 * { execPath, version, prefix } with prefix the rows' name prefix ("node20:").
 */
function secondaryNode() {
  const execPath = process.env[SECONDARY_ENV];
  if (!execPath || process.env.BENCH_SECONDARY === "0") return undefined;
  const version = execFileSync(execPath, ["-v"]).toString().trim();
  const major = version.replace(/^v/, "").split(".")[0];
  if (major === process.versions.node.split(".")[0]) return undefined;
  return { execPath, version, prefix: `node${major}:` };
}

/** This run's secondary Node (see secondaryNode), read once. */
export const SECONDARY_NODE = secondaryNode();
