// The benchmark's databases: a fresh PostgreSQL schema and a temporary PGlite folder, each
// migrated with the project's own runner (scripts/db/migrate.mjs), seeded with bench/seed-data.mjs,
// and removed afterwards. Each comes with a db-worker for the "direct Prisma" rows.
import { execFile, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import pg from "pg";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WORKER = path.join(ROOT, "bench", "db-worker.mjs");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The environment of a process on one database: the bench's own minus any database choice it
 * inherited (a DATABASE_URL in the shell must not turn the PGlite server into a PostgreSQL one).
 * @param {Record<string, string>} database DATABASE_URL or PGLITE_DATA_DIR
 */
export function databaseEnv(database) {
  const { DATABASE_URL: _url, PGLITE_DATA_DIR: _dir, ...inherited } = process.env;
  return { ...inherited, ...database };
}

/** `node scripts/db/migrate.mjs deploy` on `database`, as `npm run db:deploy` would. */
async function migrate(database) {
  try {
    await promisify(execFile)(process.execPath, ["scripts/db/migrate.mjs", "deploy"], { cwd: ROOT, env: databaseEnv(database) });
  } catch (err) {
    throw new Error(`migrating ${JSON.stringify(database)} failed:\n${err.stdout ?? ""}${err.stderr ?? err.message}`);
  }
}

/**
 * A db-worker on `database`, ready for requests.
 * @returns {Promise<{ queries: Record<string, string>, call: (op: string, args?: object) => Promise<any>, close: () => Promise<void> }>}
 */
async function startWorker(database) {
  const child = fork(WORKER, [], { cwd: ROOT, env: databaseEnv(database), stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let exited = false;
  const onExit = new Promise((resolve) => child.once("exit", (code, signal) => resolve((exited = `exited (${signal ?? code})`))));
  /** The next message, or a rejection if the worker dies first. */
  const nextMessage = () =>
    Promise.race([
      new Promise((resolve) => child.once("message", resolve)),
      onExit.then((why) => Promise.reject(new Error(`db-worker ${why}`))),
    ]);

  const { queries } = await nextMessage(); // { ready: true }: loaded the app's modules and listening
  return {
    /** Which lib/worlds/data/worlds.ts function each query times. */
    queries,
    async call(op, args = {}) {
      if (exited) throw new Error(`db-worker ${exited}`);
      const answer = nextMessage();
      child.send({ op, ...args });
      const { result, error } = await answer;
      if (error) throw new Error(`db-worker ${op}: ${error}`);
      return result;
    },
    async close() {
      if (exited) return;
      await this.call("close").catch(() => child.kill("SIGKILL"));
      await onExit;
    },
  };
}

/** A seeded database's worker; the seed counts are for the report. */
async function seeded(database) {
  const worker = await startWorker(database);
  try {
    return { worker, counts: await worker.call("seed") };
  } catch (err) {
    await worker.close();
    throw err;
  }
}

async function withPgClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh schema in the PostgreSQL database at `baseUrl` (loopback only: the benchmark must not
 * load another machine). `cleanup()` closes the worker and drops the schema; call it after the
 * servers using it have stopped.
 */
export async function preparePostgres(baseUrl) {
  const url = new URL(baseUrl);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`BENCH_DATABASE_URL must name a loopback host, got ${url.hostname}`);
  const schema = `bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  url.searchParams.set("schema", schema);
  const database = { DATABASE_URL: url.href };
  const drop = () => withPgClient(baseUrl, (c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  try {
    const version = await withPgClient(baseUrl, async (c) => (await c.query("SHOW server_version")).rows[0].server_version);
    await migrate(database); // creates the schema, as Prisma does for `?schema=`
    const { worker, counts } = await seeded(database);
    return {
      serverEnv: database,
      worker,
      counts,
      description: `PostgreSQL ${version} at ${url.host}${url.pathname}, fresh schema \`${schema}\` (dropped afterwards)`,
      async cleanup() {
        await worker.close();
        await drop();
      },
    };
  } catch (err) {
    await drop();
    throw err;
  }
}

/**
 * A temporary PGlite folder for the server, and a copy of it for the worker: PGlite allows one
 * process per folder, and a copy made while nothing has it open holds exactly the same rows.
 */
export async function preparePglite() {
  const { version } = JSON.parse(await readFile(path.join(ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8"));
  const base = await mkdtemp(path.join(tmpdir(), "bench-pglite-"));
  const serverDir = path.join(base, "server");
  const directDir = path.join(base, "direct");
  try {
    await migrate({ PGLITE_DATA_DIR: serverDir });
    const seeding = await seeded({ PGLITE_DATA_DIR: serverDir });
    await seeding.worker.close(); // releases the folder
    await cp(serverDir, directDir, { recursive: true });
    const worker = await startWorker({ PGLITE_DATA_DIR: directDir });
    return {
      serverEnv: { PGLITE_DATA_DIR: serverDir },
      worker,
      counts: seeding.counts,
      description: `PGlite ${version} in a temporary folder; the direct rows read a copy of it (one process per folder)`,
      async cleanup() {
        await worker.close();
        await rm(base, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(base, { recursive: true, force: true });
    throw err;
  }
}
