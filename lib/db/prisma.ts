/**
 * The one Prisma client of the process, on the database the configuration names: PostgreSQL
 * through @prisma/adapter-pg when DATABASE_URL is set, otherwise the embedded PGlite database in
 * PGLITE_DATA_DIR (migrated by `npm run dev` / `npm run db:deploy` before the server starts —
 * PGlite allows one process per data directory, so the server never migrates it itself).
 */
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { resolve } from "node:path";
import { loadEnv, type Env } from "../config/env";
import { PrismaClient } from "./generated/client";

export type { PrismaClient } from "./generated/client";

export interface DatabaseHandle {
  prisma: PrismaClient;
  /**
   * One parameterized statement on the same connections Prisma uses, without Prisma's query
   * engine in between — for the few hottest reads (get_world), where the engine costs more CPU
   * than the query. Rows come back as the driver parses them: cast timestamps to timestamptz.
   */
  sql<T>(text: string, params: readonly unknown[]): Promise<T[]>;
  /** Disconnects the client and releases the database (PGlite's folder lock included). */
  close(): Promise<void>;
}

/** Opens a client for `env`; most callers want the shared `getPrisma()` instead. */
export function openDatabase(env: Pick<Env, "DATABASE_URL" | "PGLITE_DATA_DIR">): DatabaseHandle {
  if (env.DATABASE_URL) {
    // Prisma's `?schema=` convention: model queries name that schema, and raw SQL finds it first
    // on the search_path, as the migrations (scripts/db) created the tables there.
    const schema = new URL(env.DATABASE_URL).searchParams.get("schema") ?? undefined;
    const options = schema ? `-c search_path="${schema.replaceAll('"', '""')}"` : undefined;
    // One pool for Prisma and for sql(): the same connections, the same search_path.
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, options });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { schema }) });
    return {
      prisma,
      sql: async <T>(text: string, params: readonly unknown[]) => (await pool.query(text, [...params])).rows as T[],
      close: async () => {
        await prisma.$disconnect();
        await pool.end().catch(() => undefined);
      },
    };
  }
  // The hint keeps the bundler from tracing the whole project folder into the build output.
  const db = new PGlite(resolve(/*turbopackIgnore: true*/ process.cwd(), env.PGLITE_DATA_DIR));
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  // The PGlite adapter does not close its database on $disconnect; we do.
  return {
    prisma,
    sql: async <T>(text: string, params: readonly unknown[]) => (await db.query<T>(text, [...params])).rows,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

// Next dev re-evaluates modules on every edit; the client (and PGlite's lock on its folder)
// must survive that, so it lives on globalThis rather than in a module variable.
const cache = globalThis as typeof globalThis & { __worldcrafterDb?: DatabaseHandle };

function database(): DatabaseHandle {
  cache.__worldcrafterDb ??= openDatabase(loadEnv());
  return cache.__worldcrafterDb;
}

/** The process-wide client, created on first use. */
export function getPrisma(): PrismaClient {
  return database().prisma;
}

/** A parameterized statement on the process-wide connections (see DatabaseHandle.sql). */
export function sql<T>(text: string, params: readonly unknown[]): Promise<T[]> {
  return database().sql<T>(text, params);
}

/** Releases the process-wide client (scripts and tests; the server keeps it for its lifetime). */
export async function closePrisma(): Promise<void> {
  const handle = cache.__worldcrafterDb;
  cache.__worldcrafterDb = undefined;
  await handle?.close();
}
