// Runs the official MCP conformance suite against the real `next start` server's fixture route,
// under the suite's own Node 22 (installed from the npm registry in this folder's node_modules).
//
//   node tests/conformance/run.mjs   # 2025-11-25 required + suite all, 2026-07-28 required (one server),
//                                    # then suite all and 2026-07-28 again across two servers
//
// The second half starts two servers sharing Redis (REDIS_URL, default the local one) and puts a
// round-robin proxy in front, so every request reaches the other instance than the one before.
//
// Prints per-scenario lines and a closing `N passed, M failed` over scenarios, and writes a JSON
// summary to tests/conformance/results/summary.json for .ci/run.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startNextServer } from "../support/next-server.mjs";
import { startRoundRobinProxy } from "../support/round-robin-proxy.mjs";
import { randomUUID } from "node:crypto";
import pg from "pg";

const HERE = join(ROOT, "tests/conformance");
const NODE22 = join(HERE, "node_modules/.bin/node");
const SUITE = join(HERE, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const RESULTS = join(HERE, "results");

function ensureInstalled() {
  if (existsSync(NODE22) && existsSync(SUITE)) return;
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: HERE, stdio: "inherit" });
  if (r.status !== 0) throw new Error("installing the conformance runner failed");
}

/**
 * The tasks extension keeps its tasks in the database, shared by both instances of the pair: a
 * schema of its own in PostgreSQL (TEST_DATABASE_URL, default the local `test` database),
 * migrated here and dropped at the end.
 */
async function taskDatabase() {
  const baseUrl = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const schema = `conformance_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const url = `${baseUrl}?schema=${schema}`;
  const { DATABASE_URL: _u, PGLITE_DATA_DIR: _d, ...inherited } = process.env;
  const r = spawnSync(process.execPath, ["scripts/db/migrate.mjs", "deploy"], { cwd: ROOT, env: { ...inherited, DATABASE_URL: url }, stdio: "inherit" });
  if (r.status !== 0) throw new Error("migrating the conformance database failed");
  return {
    url,
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

function runSuite(args, label) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, "server", ...args], { cwd: HERE, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on("data", (d) => process.stderr.write(d));
    child.on("exit", (code) => {
      // Lines like "✓ tools-list: 2 passed, 0 failed" (one per scenario).
      const scenarios = [...out.matchAll(/^\s*([✓✗])\s+([\w.-]+):\s+(\d+) passed, (\d+) failed/gm)].map((m) => ({
        scenario: m[2],
        ok: m[1] === "✓" && m[4] === "0",
        passed: Number(m[3]),
        failed: Number(m[4]),
      }));
      // "Not scored for <version>: …" lists scenarios (pending, extensions) that do not count.
      const notScoredBlock = out.split(/Not scored for [^\n]*\n/)[1] ?? "";
      const notScored = new Set([...notScoredBlock.matchAll(/^\s*[✓✗]\s+([\w.-]+)\s+\(/gm)].map((m) => m[1]));
      for (const sc of scenarios) sc.scored = !notScored.has(sc.scenario);
      resolve({ label, exitCode: code, scenarios });
    });
  });
}

/** The tasks' schema, dropped at the end of the pair's run or when the run fails before it. */
let db;

async function main() {
  ensureInstalled();
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  // The fixture route is unauthenticated by design; the product route beside it still needs an
  // issuer to start in production mode, and the development issuer is fine for that here.
  db = await taskDatabase();
  const base = { MCP_CONFORMANCE_FIXTURES: "1", BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef", DATABASE_URL: db.url };
  const runs = [];
  // One server process serves every run: both eras side by side, as in production.
  const server = await startNextServer({ env: base });
  try {
    // The suite requires a loopback *name* for the DNS-rebinding scenario; localhost resolves to 127.0.0.1 here.
    const url = `http://localhost:${server.port}/api/conformance/mcp`;
    runs.push(await runSuite(["--url", url, "--requirements", "2025-11-25", "-o", join(RESULTS, "required-2025")], "required (2025-11-25)"));
    runs.push(await runSuite(["--url", url, "--suite", "all", "--spec-version", "2025-11-25", "-o", join(RESULTS, "all-2025")], "suite all (2025-11-25)"));
    runs.push(await runSuite(["--url", url, "--requirements", "2026-07-28", "-o", join(RESULTS, "required-2026")], "required (2026-07-28)"));
  } finally {
    await server.stop();
  }
  // Two instances sharing one Redis, behind a proxy that alternates between them per request.
  const shared = {
    ...base,
    REDIS_URL: process.env.CONFORMANCE_REDIS_URL ?? "redis://127.0.0.1:6379",
    MCP_REQUEST_STATE_SECRET: "conformance-shared-request-state-secret-0123456789",
  };
  const pair = await Promise.all([startNextServer({ env: shared }), startNextServer({ env: shared })]);
  const proxy = await startRoundRobinProxy(pair.map((s) => s.url));
  try {
    const url = `http://localhost:${proxy.port}/api/conformance/mcp`;
    runs.push(await runSuite(["--url", url, "--suite", "all", "--spec-version", "2025-11-25", "-o", join(RESULTS, "all-2025-two-instances")], "suite all (2025-11-25), two instances"));
    runs.push(await runSuite(["--url", url, "--requirements", "2026-07-28", "-o", join(RESULTS, "required-2026-two-instances")], "required (2026-07-28), two instances"));
    console.log(`\nproxy: ${proxy.served.join(" + ")} requests to the two instances, ${proxy.retried.join(" + ")} sent again after a reused connection's reset`);
  } finally {
    await proxy.close();
    await Promise.all(pair.map((s) => s.stop()));
    await db.drop();
    db = undefined;
  }
  let passed = 0;
  let failed = 0;
  for (const run of runs) {
    const scored = run.scenarios.filter((s) => s.scored);
    const ok = scored.filter((s) => s.ok).length;
    const bad = scored.length - ok;
    console.log(`\n${run.label}: ${ok}/${scored.length} scored scenarios passed, exit ${run.exitCode}`);
    for (const s of scored.filter((x) => !x.ok)) console.log(`  failed: ${s.scenario} (${s.failed} checks)`);
    const extra = run.scenarios.filter((s) => !s.scored);
    if (extra.length > 0) {
      console.log(`  not scored: ${extra.filter((s) => s.ok).length}/${extra.length} passed`);
      for (const s of extra) console.log(`    ${s.ok ? "passes" : "does not pass yet"}: ${s.scenario} (${s.passed} passed, ${s.failed} failed checks)`);
    }
    passed += ok;
    failed += bad + (run.exitCode !== 0 && bad === 0 ? 1 : 0);
  }
  writeFileSync(join(RESULTS, "summary.json"), JSON.stringify({ passed, failed, runs }, null, 2));
  console.log(`\nconformance: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch(async (e) => {
  console.error(e);
  await db?.drop().catch(() => undefined);
  process.exit(1);
});
