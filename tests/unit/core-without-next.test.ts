import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "../../lib/config/env";
import { createMcpEndpoint, defineTool } from "../../lib/mcp";

/** The core is plain web Request → Response: it runs here with no Next.js and no server. */
const echo = defineTool({
  name: "echo",
  description: "Echo a message",
  input: z.object({ message: z.string().max(100) }),
  handler: ({ message }) => ({ content: [{ type: "text", text: message }] }),
});

function endpoint() {
  const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
  return createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [echo] } }, env);
}

function rpc(body: unknown): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
}

describe("the MCP core mounted without Next.js", () => {
  it("serves tools/call from a bare web Request", async () => {
    const res = await endpoint().handle(rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } });
  });

  it("reports zod issue paths for bad arguments", async () => {
    const res = await endpoint().handle(rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: 5 } } }));
    const body = (await res.json()) as { error: { code: number; data: { path: unknown[] }[] } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.data[0]?.path).toEqual(["message"]);
  });

  it("keeps Next.js, Prisma and Redis out of lib/jsonrpc, lib/mcp and lib/http", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && /from "(next|next\/[^"]*|@prisma\/[^"]*|ioredis|redis|@upstash\/[^"]*)"/.test(readFileSync(path, "utf8"))) {
          offenders.push(path);
        }
      }
    };
    for (const dir of ["lib/jsonrpc", "lib/mcp", "lib/http"]) walk(join(__dirname, "../..", dir));
    expect(offenders).toEqual([]);
  });
});
