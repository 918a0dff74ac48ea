/**
 * Two instances of one deployment: two `next start` processes on one PostgreSQL schema and one
 * Redis, behind a round-robin proxy that is the deployment's public URL. Both instances are
 * configured with that URL as MCP_RESOURCE_URL, so a token signed with the built-in authorization server's keys for
 * it (issuer = the proxy's origin, audience = its /api/mcp) is valid on either of them, whether a
 * request goes through the proxy or straight to one instance.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentKeyRow, signAccessToken } from "../../lib/authorization-server/key-file";
import { Scope } from "../../lib/worlds/scopes";
import { freePort, startNextServer, type RunningNextServer } from "./next-server.mjs";
import { startRoundRobinProxy, type RoundRobinProxy } from "./round-robin-proxy.mjs";
import { migratedTestSchema, type TestSchema } from "./test-database";

export const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TwoInstances {
  a: RunningNextServer;
  b: RunningNextServer;
  proxy: RoundRobinProxy;
  /** The deployment's public MCP URL (the proxy's /api/mcp): both instances' MCP_RESOURCE_URL. */
  resourceUrl: string;
  redisUrl: string;
  /** The PostgreSQL schema both instances use (DATABASE_URL). */
  databaseUrl: string;
  /** A development-issuer token valid on both instances and through the proxy. */
  tokenFor(subject: string, scopes?: readonly string[]): Promise<string>;
  /** Stops the proxy and both servers, drops the schema, removes the key folder. Idempotent. */
  stop(): Promise<void>;
}

export interface TwoInstancesOptions {
  /** Prefix of the PostgreSQL schema made for the run. */
  prefix: string;
  /** Added to (and overriding) both instances' environment. */
  env?: Record<string, string>;
}

/** A free loopback port none of `taken` uses (freePort releases its port, so it may hand it out twice). */
async function freePortExcept(taken: readonly number[]): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    if (!taken.includes(port)) return port;
  }
  throw new Error("no distinct free port found");
}

export async function startTwoInstances(options: TwoInstancesOptions): Promise<TwoInstances> {
  // Everything started is registered at once, so a failure half-way leaves nothing behind.
  const cleanups: (() => Promise<void>)[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    // The proxy's port first: it is the public URL, which both instances must know at start-up.
    const proxyPort = await freePort();
    const resourceUrl = `http://127.0.0.1:${proxyPort}/api/mcp`;
    const issuer = new URL(resourceUrl).origin;
    const devIssuerDir = mkdtempSync(join(tmpdir(), "wc-scale-issuer-"));
    cleanups.push(async () => rmSync(devIssuerDir, { recursive: true, force: true }));
    // Made before the servers start, so both trust the same key (they would race to make one).
    await currentKeyRow(devIssuerDir);
    const database: TestSchema = await migratedTestSchema(options.prefix);
    cleanups.push(() => database.drop());

    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      REDIS_URL: SHARED_REDIS_URL,
      // Empty is unset (lib/config/env.ts): an outer Upstash configuration must not win over REDIS_URL.
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
      MCP_REQUEST_STATE_SECRET: "scale-out-test-request-state-secret-0123456789",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_AUTH_KEYS_DIR: devIssuerDir,
      MCP_RESOURCE_URL: resourceUrl,
      MCP_AUTH_MODE: "mixed",
      MCP_SSE_PING_MS: "1000",
      MCP_RESUME_GRACE_MS: "5000",
      // Short, so a test can outwait it: a running stream must stay resumable past it anyway.
      MCP_STREAM_RETENTION_MS: "1500",
      MCP_RATE_LIMITS: "0",
      MCP_CONFORMANCE_FIXTURES: "1",
      MCP_DISABLED_TOOLS: "",
      ...options.env,
    };
    const portA = await freePortExcept([proxyPort]);
    const portB = await freePortExcept([proxyPort, portA]);
    const starts = [startNextServer({ port: portA, env }), startNextServer({ port: portB, env })];
    const settled = await Promise.allSettled(starts);
    for (const s of settled) if (s.status === "fulfilled") cleanups.push(() => s.value.stop());
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    const [a, b] = settled.map((s) => (s as PromiseFulfilledResult<RunningNextServer>).value) as [RunningNextServer, RunningNextServer];

    const proxy = await startRoundRobinProxy([a.url, b.url], proxyPort);
    cleanups.push(() => proxy.close());

    const tokens = new Map<string, Promise<string>>();
    const tokenFor = (subject: string, scopes: readonly string[] = [Scope.Read, Scope.Write]) => {
      const key = `${subject} ${scopes.join(" ")}`;
      let token = tokens.get(key);
      if (!token) {
        token = signAccessToken(devIssuerDir, { issuer, audience: resourceUrl, subject, scopes });
        tokens.set(key, token);
      }
      return token;
    };
    return { a, b, proxy, resourceUrl, redisUrl: SHARED_REDIS_URL, databaseUrl: database.url, tokenFor, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
