/**
 * The one database of the process, on the connection the configuration names: PostgreSQL through
 * `pg` (and @prisma/adapter-pg) when DATABASE_URL is set, otherwise the embedded PGlite database
 * in PGLITE_DATA_DIR (migrated by `npm run dev` / `npm run db:deploy` before the server starts —
 * PGlite allows one process per data directory, so the server never migrates it itself).
 *
 * Everything here is loaded on first use, in two steps. The connection (pg or PGlite) is opened
 * by the first statement; Prisma's client, whose query compiler is a WebAssembly module of some
 * 70 MB once instantiated, by the first `getPrisma()`. A server start, a tools/list, or tools that
 * only write audit rows (plain SQL) load neither Prisma nor the driver they do not use: cold start
 * and memory stay close to the bare framework's (bench/RESULTS.md).
 */
import { resolve } from "node:path";
import { lockEmbeddedDatabase } from "./pglite-lock.mjs";
import { loadEnv, type Env } from "../config/env";
import { preparedStatementsAllowed, statementName } from "./named-statements";
import type { PrismaClient } from "./generated/client";
import { pgTransaction, type StatementRunner } from "./transaction";

export type { PrismaClient } from "./generated/client";

export interface DatabaseHandle {
  /** The Prisma client on this handle's connections, created on first call. */
  prisma(): Promise<PrismaClient>;
  /**
   * One parameterized statement on the same connections Prisma uses, without Prisma's query
   * engine in between — for the hottest paths (get_world, the audit log), where the engine costs
   * more CPU than the query. Rows come back as the driver parses them: cast timestamps to timestamptz.
   * `text` is a constant with $n placeholders: on PostgreSQL it becomes a named prepared statement.
   */
  sql<T>(text: string, params: readonly unknown[]): Promise<T[]>;
  /**
   * Statements in one transaction on one connection (committed when `work` resolves, rolled back
   * when it throws): for the few writes that must read and write as one (a task within its
   * owner's limits), without loading Prisma.
   */
  transaction<T>(work: (sql: StatementRunner) => Promise<T>): Promise<T>;
  /** Disconnects the client and releases the database (PGlite's folder lock included). */
  close(): Promise<void>;
}

export type { StatementRunner } from "./transaction";

/** What a driver gives the handle: its statement runner, Prisma's adapter for it, and its end. */
interface Connection {
  sql<T>(text: string, params: readonly unknown[]): Promise<T[]>;
  transaction<T>(work: (sql: StatementRunner) => Promise<T>): Promise<T>;
  adapter(): Promise<NonNullable<ConstructorParameters<typeof PrismaClient>[0]["adapter"]>>;
  close(): Promise<void>;
}

async function postgresConnection(url: string): Promise<Connection> {
  const { default: pg } = await import("pg");
  // Prisma's `?schema=` convention: model queries name that schema, and raw SQL finds it first
  // on the search_path, as the migrations (scripts/db) created the tables there.
  const schema = new URL(url).searchParams.get("schema") ?? undefined;
  const options = schema ? `-c search_path="${schema.replaceAll('"', '""')}"` : undefined;
  // One pool for Prisma and for sql(): the same connections, the same search_path.
  const pool = new pg.Pool({ connectionString: url, options });
  // Named statements unless the URL says a transaction pooler is in between (named-statements.ts).
  const named = preparedStatementsAllowed(url);
  return {
    sql: async <T>(text: string, params: readonly unknown[]) => {
      // No name (pooler, or past the cap): pg sends the statement unnamed.
      const name = named ? statementName(text) : undefined;
      return (await pool.query({ name, text, values: [...params] })).rows as T[];
    },
    transaction: <T>(work: (sql: StatementRunner) => Promise<T>) => pgTransaction(pool, work),
    adapter: async () => new (await import("@prisma/adapter-pg")).PrismaPg(pool, { schema }),
    close: () => pool.end().catch(() => undefined),
  };
}

async function pgliteConnection(dataDir: string): Promise<Connection> {
  const { PGlite } = await import("@electric-sql/pglite");
  // The hint keeps the bundler from tracing the whole project folder into the build output.
  const folder = resolve(/*turbopackIgnore: true*/ process.cwd(), dataDir);
  // One process per folder (pglite-lock.mjs); the server took it at start-up already (startup.ts).
  const release = lockEmbeddedDatabase(folder, "a WorldCrafter server");
  const db = new PGlite(folder);
  // Opening fails here (a folder that cannot be made, a lock held), not at the first query: the
  // connection is then forgotten and the next use opens it again.
  try {
    await db.waitReady;
  } catch (thrown) {
    release();
    throw thrown;
  }
  return {
    sql: async <T>(text: string, params: readonly unknown[]) => (await db.query<T>(text, [...params])).rows,
    transaction: <T>(work: (sql: StatementRunner) => Promise<T>) => db.transaction((tx) => work(async <R>(text: string, params: readonly unknown[]) => (await tx.query<R>(text, [...params])).rows)),
    adapter: async () => new (await import("pglite-prisma-adapter")).PrismaPGlite(db),
    // The PGlite adapter does not close its database on $disconnect; we do.
    close: () => db.close().finally(release),
  };
}

/** Opens a handle for `env`; nothing connects until it is used. Most callers want `getPrisma()` / `sql()`. */
export function openDatabase(env: Pick<Env, "DATABASE_URL" | "PGLITE_DATA_DIR">): DatabaseHandle {
  let connection: Promise<Connection> | undefined;
  let client: Promise<PrismaClient> | undefined;
  // A connection or client that failed to open is forgotten, so the next use tries again (the
  // database may come up later) rather than repeating the first failure for the process's life.
  const connect = () =>
    (connection ??= (env.DATABASE_URL ? postgresConnection(env.DATABASE_URL) : pgliteConnection(env.PGLITE_DATA_DIR)).catch((error: unknown) => {
      connection = undefined;
      throw error;
    }));
  const createClient = async () => {
    const [{ PrismaClient: Client }, adapter] = await Promise.all([import("./generated/client"), connect().then((c) => c.adapter())]);
    return new Client({ adapter });
  };
  return {
    prisma: () =>
      (client ??= createClient().catch((error: unknown) => {
        client = undefined;
        throw error;
      })),
    sql: async <T>(text: string, params: readonly unknown[]) => (await connect()).sql<T>(text, params),
    transaction: async <T>(work: (sql: StatementRunner) => Promise<T>) => (await connect()).transaction(work),
    async close() {
      const [prisma, open] = [client, connection];
      client = connection = undefined;
      await (await prisma?.catch(() => undefined))?.$disconnect();
      await (await open?.catch(() => undefined))?.close();
    },
  };
}

// Next dev re-evaluates modules on every edit; the connections (and PGlite's lock on its folder)
// must survive that, so the handle lives on globalThis rather than in a module variable.
const cache = globalThis as typeof globalThis & { __worldcrafterDb?: DatabaseHandle };

function database(): DatabaseHandle {
  cache.__worldcrafterDb ??= openDatabase(loadEnv());
  return cache.__worldcrafterDb;
}

/** The process-wide Prisma client, created on first use. */
export function getPrisma(): Promise<PrismaClient> {
  return database().prisma();
}

/** A parameterized statement on the process-wide connections (see DatabaseHandle.sql). */
export function sql<T>(text: string, params: readonly unknown[]): Promise<T[]> {
  return database().sql<T>(text, params);
}

/** Statements in one transaction on the process-wide connections (see DatabaseHandle.transaction). */
export function transaction<T>(work: (sql: StatementRunner) => Promise<T>): Promise<T> {
  return database().transaction(work);
}

/** Releases the process-wide client (scripts and tests; the server keeps it for its lifetime). */
export async function closePrisma(): Promise<void> {
  const handle = cache.__worldcrafterDb;
  cache.__worldcrafterDb = undefined;
  await handle?.close();
}
