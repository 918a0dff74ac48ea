import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "../../lib/config/env";
import { createMcpEndpoint, defineTool } from "../../lib/mcp";
import { createRequestLimiter } from "../../lib/ratelimit/create-limiter";
import { limiterSettingsOf } from "../../lib/ratelimit/settings";

/**
 * What this file proves: the client's address (trusted proxies, address parsing) is worked out
 * only when something needs it — a rate limit's caller key — and not for every tools/call. The
 * host's address is a getter here that counts its reads.
 */
const slow = defineTool({
  name: "slow_echo",
  description: "Echo a message after a tick (runs under the tool time limit's scope)",
  input: z.object({ message: z.string().max(100) }),
  handler: async ({ message }) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return { content: [{ type: "text", text: message }] };
  },
});

function endpoint(limits: boolean) {
  const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0", MCP_RATE_LIMITS: limits ? "1" : "0" });
  return createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [slow] } }, env, limits ? { limiter: createRequestLimiter(limiterSettingsOf(env)) } : {});
}

const ARGS = { name: "slow_echo", arguments: { message: "hi" } };
const META_2026 = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };

const REQUESTS: Record<string, () => Request> = {
  "2025-11-25": () =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: ARGS }),
    }),
  "2026-07-28": () =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "slow_echo" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...ARGS, _meta: META_2026 } }),
    }),
};

/** A host init whose client address counts how often it is read. */
function countingHost() {
  const host = {
    reads: 0,
    get clientAddress() {
      host.reads++;
      return "203.0.113.9";
    },
  };
  return host;
}

describe("the client address is read on demand", () => {
  for (const [era, request] of Object.entries(REQUESTS)) {
    it(`${era}: a tools/call without rate limits never reads it`, async () => {
      const host = countingHost();
      const res = await endpoint(false).handle(request(), host);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('"text":"hi"');
      expect(host.reads).toBe(0);
    });

    it(`${era}: with rate limits it is read, for the caller's key`, async () => {
      const host = countingHost();
      const res = await endpoint(true).handle(request(), host);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('"text":"hi"');
      expect(host.reads).toBeGreaterThan(0);
    });
  }
});
