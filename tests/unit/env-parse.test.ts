/**
 * lib/config/env.ts parses the environment without zod's JIT (it runs once a process): the same
 * answers as any zod parse — coercion, defaults, a bad value named, cross-variable rules.
 */
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../lib/config/env";

describe("loadEnv", () => {
  it("coerces numbers, applies defaults and drops empty values", () => {
    const env = loadEnv({ MCP_SSE_KEEPALIVE_MS: "5000", PORT: "", NODE_ENV: "production" });
    expect(env.MCP_SSE_KEEPALIVE_MS).toBe(5000);
    expect(env.PORT).toBeUndefined();
    expect(env.NODE_ENV).toBe("production");
    expect(loadEnv({}).MCP_SSE_KEEPALIVE_MS).toBe(15_000);
  });

  it("names each bad variable, and the pairs that must be set together", () => {
    expect(() => loadEnv({ PORT: "seventy", MCP_SSE_KEEPALIVE_MS: "-1" })).toThrow(/Invalid configuration:\n {2}(PORT|MCP_SSE_KEEPALIVE_MS): .*\n {2}(PORT|MCP_SSE_KEEPALIVE_MS): /);
    expect(() => loadEnv({ UPSTASH_REDIS_REST_URL: "https://example.upstash.io" })).toThrow(/UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together/);
  });

  it("answers a second parse of the same source the same", () => {
    const source = { MCP_SSE_KEEPALIVE_MS: "7000" };
    expect(loadEnv(source)).toEqual(loadEnv(source));
  });
});
