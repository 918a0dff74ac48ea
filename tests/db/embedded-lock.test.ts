import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migrateDatabase } from "../support/test-database";

/**
 * One process at a time on an embedded (PGlite) database folder (lib/db/pglite-lock.mjs). An
 * outside review ran a second `npm start` beside a running server: its prestart migration opened
 * the folder before the port clash stopped it, and every write the running server acknowledged
 * after that was lost (148 of 240), or the folder no longer opened; a second server on another
 * port served from its own copy. Now the second process stops before it opens the folder, with the
 * holder named; the lock goes with its holder, and one left by a dead process is taken over. A
 * folder PGlite cannot open was "Aborted()" and nothing more: it is now named, with what to do.
 */
const scratch = mkdtempSync(join(tmpdir(), "wc-pglite-lock-"));
const dataDir = join(scratch, "pglite");
const lockFile = `${dataDir}.lock`;
let server: RunningNextServer | undefined;

const embedded = { DATABASE_URL: "", PGLITE_DATA_DIR: dataDir, MCP_RATE_LIMITS: "0" };

/** `npm start`'s prestart step on the folder: its exit code and what it printed. */
async function migrate(): Promise<{ code: number; output: string }> {
  const { DATABASE_URL: _url, PGLITE_DATA_DIR: _dir, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["scripts/db/migrate.mjs", "deploy", "--embedded-only"], { cwd: ROOT, env: { ...inherited, PGLITE_DATA_DIR: dataDir } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

beforeAll(async () => {
  await migrateDatabase({ PGLITE_DATA_DIR: dataDir });
  server = await startNextServer({ env: embedded });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the embedded database's folder lock", () => {
  it("is held by a running server from start-up, naming it", async () => {
    expect(JSON.parse(readFileSync(lockFile, "utf8"))).toMatchObject({ pid: server?.pid });
    const health = await fetch(`${server?.url}/api/health?ready`);
    expect(((await health.json()) as { checks: { database: { status: string } } }).checks.database.status).toBe("ok");
  });

  it("stops a second npm start at its prestart migration, before it opens the folder", async () => {
    const { code, output } = await migrate();
    expect(code).toBe(1);
    expect(output).toContain(`is in use by process ${server?.pid}`);
    expect(output).toContain("set DATABASE_URL");
  });

  it("stops a second server on another port at start-up", async () => {
    const second = await startNextServer({ env: embedded }).then(
      async (started) => {
        await started.stop();
        return new Error("a second server started on the folder");
      },
      (refused: unknown) => (refused instanceof Error ? refused : new Error(String(refused))),
    );
    expect(second.message).toMatch(/WorldCrafter cannot start: the embedded database .* is in use by process \d+/);
    // The first one still serves from the folder.
    const health = await fetch(`${server?.url}/api/health?ready`);
    expect(health.status).toBe(200);
  }, 60_000);

  it("goes with its holder: once the server has stopped, the folder migrates again", async () => {
    await server?.stop();
    server = undefined;
    expect(existsSync(lockFile)).toBe(false);
    expect(await migrate()).toMatchObject({ code: 0 });
  });

  it("left by a process that died (kill -9), is taken over", async () => {
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(lockFile, JSON.stringify({ pid: Number(gone.stdout), who: "a WorldCrafter server", since: "2026-01-01T00:00:00.000Z" }));
    const { code, output } = await migrate();
    expect(output).not.toContain("in use");
    expect(code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });

  it("a folder PGlite cannot open is named, with what to do, and left unlocked", async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, "PG_VERSION"), "17\n");
    const { code, output } = await migrate();
    expect(code).toBe(1);
    expect(output).toContain(`the embedded database ${dataDir} could not be opened`);
    expect(output).toContain("move it aside");
    expect(existsSync(lockFile)).toBe(false);
  });
});
