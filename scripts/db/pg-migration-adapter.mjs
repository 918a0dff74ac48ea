// A driver adapter factory for running the schema engine against PostgreSQL.
//
// @prisma/adapter-pg (7.10.1) is made for queries, and used for migrations it trips in four
// places; each workaround below names its trap:
// 1. It cannot deserialize PostgreSQL's internal "char" type (OID 18), which the engine's
//    catalog queries return (pg_class.relkind, pg_constraint.contype…): our pg Client reports
//    such columns as text, which is what their values are.
// 2. Built from a connection string, its shadow database silently becomes the main database
//    (node-postgres lets `connectionString` override `database`): we parse the URL and pass
//    host, port, user, password and database separately.
// 3. Built from a pg.Pool, the shadow connection loses its password (pool.options hides it
//    from the spread): we never hand it a pool.
// 4. Its shadow database is dropped before its connections are closed, so the DROP fails: we
//    open the shadow database ourselves and close its pool before dropping it.
// And its executeScript splits a migration on every ";" (even inside a comment or a string):
// we send the script whole, one simple query, as the native engine does.
import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { delegateAdapter } from "./delegate-adapter.mjs";

const CHAR_OID = 18;
const TEXT_OID = 25;

function retypeCharColumns(result) {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const field of r?.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  }
  return result;
}

/** Trap 1: node-postgres client whose results report "char" columns as text. */
class CharAsTextClient extends pg.Client {
  query(config, values, callback) {
    if (typeof values === "function") [values, callback] = [undefined, values];
    if (typeof callback === "function") {
      return super.query(config, values, (err, res) => callback(err, err ? res : retypeCharColumns(res)));
    }
    const ret = super.query(config, values);
    return ret instanceof Promise ? ret.then(retypeCharColumns) : ret;
  }
}

/** Trap 2: a pg config with every part named, plus the Prisma-style `?schema=` parameter. */
export function pgConfigFromUrl(databaseUrl) {
  const url = new URL(databaseUrl);
  const sslmode = url.searchParams.get("sslmode");
  return {
    config: {
      host: decodeURIComponent(url.hostname),
      port: url.port ? Number(url.port) : 5432,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)) || "postgres",
      ssl: ["require", "verify-ca", "verify-full"].includes(sslmode ?? "") ? true : undefined,
    },
    schema: url.searchParams.get("schema") ?? "public",
  };
}

const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

/** The adapter pg config for one database, confined to `schema` through search_path. */
function adapterConfig(config, schema) {
  return { ...config, Client: CharAsTextClient, options: `-c search_path=${quoteIdent(schema)}` };
}

/** @param {string} databaseUrl */
export function createPgMigrationAdapterFactory(databaseUrl) {
  const { config, schema } = pgConfigFromUrl(databaseUrl);
  const main = new PrismaPg(adapterConfig(config, schema), { schema });
  // Each connect() opens a pool; close() ends the ones the engine left open.
  const open = new Set();

  return {
    provider: main.provider,
    adapterName: main.adapterName,
    async connect() {
      await ensureSchema(config, schema);
      const adapter = await main.connect();
      open.add(adapter);
      return wholeScripts(adapter, async () => {
        if (open.delete(adapter)) await adapter.dispose();
      });
    },
    async close() {
      for (const adapter of open) await adapter.dispose();
      open.clear();
    },
    // Trap 4 (and 2, 3): our own shadow database, closed before it is dropped.
    async connectToShadowDb() {
      const database = `prisma_migrate_shadow_db_${randomUUID().replaceAll("-", "")}`;
      await withClient(config, (c) => c.query(`CREATE DATABASE ${quoteIdent(database)}`));
      const shadowConfig = { ...config, database };
      await ensureSchema(shadowConfig, schema);
      const adapter = await new PrismaPg(adapterConfig(shadowConfig, schema), { schema }).connect();
      return wholeScripts(adapter, async () => {
        await adapter.dispose();
        await withClient(config, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`));
      });
    },
  };
}

async function withClient(config, fn) {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The native engine creates a `?schema=` schema on first use; the adapter does not. */
async function ensureSchema(config, schema) {
  if (schema === "public") return;
  await withClient(config, (c) => c.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`));
}

/** The adapter, with scripts sent whole and our own dispose. */
function wholeScripts(adapter, dispose) {
  return delegateAdapter(adapter, {
    async executeScript(script) {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (error) {
        adapter.onError(error); // rethrows as the DriverAdapterError the engine understands
      }
    },
    dispose,
  });
}
