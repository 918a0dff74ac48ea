import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";

/**
 * What this file proves: GET /api/health answers liveness without touching anything, and
 * readiness from real checks: the shared test servers (PostgreSQL, PGlite) are ready; a server
 * whose Redis does not answer (a closed port) is live but not ready (503), naming the check.
 */

let broken: RunningNextServer;

beforeAll(async () => {
  broken = await startNextServer({ env: { REDIS_URL: "redis://127.0.0.1:1", MCP_RATE_LIMITS: "0", DATABASE_URL: inject("databaseUrl"), BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef" } });
}, 90_000);

afterAll(async () => {
  await broken?.stop();
});

describe("GET /api/health", () => {
  it.each([["PostgreSQL", () => inject("statefulUrl")], ["PGlite", () => inject("pgliteUrl")]])("is ready on %s", async (_name, url) => {
    const res = await fetch(`${url()}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { status: string; ready: boolean; checks: { database: { status: string }; redis: { status: string } } };
    expect(body).toMatchObject({ status: "ok", live: true, ready: true });
    expect(body.checks.database.status).toBe("ok");
    expect(body.checks.redis.status).toBe("not_configured");
  });

  it("answers liveness alone with ?probe=live", async () => {
    const res = await fetch(`${broken.url}/api/health?probe=live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", live: true });
  });

  it("is live but not ready when Redis does not answer, and says which check failed", async () => {
    const res = await fetch(`${broken.url}/api/health`, { signal: AbortSignal.timeout(15_000) });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ready: boolean; live: boolean; checks: { database: { status: string }; redis: { status: string; error?: string } } };
    expect(body.live).toBe(true);
    expect(body.ready).toBe(false);
    expect(body.checks.database.status).toBe("ok");
    expect(body.checks.redis.status).toBe("failed");
    expect(body.checks.redis.error).toBeTruthy();
  });
});
