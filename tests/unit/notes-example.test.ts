import { SignJWT } from "jose";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../lib/config/env";
import { createNotesEndpoint, createNotesResourceServer } from "../../examples/notes/endpoint";

/**
 * docs/reusing-the-core.md's example, run: another team's endpoint (examples/notes) on the core,
 * with its own protected resource, called in process (endpoint.handle(Request)) in both eras.
 * Its code blocks are the example's files, which tsc checks.
 */

const ROOT = join(__dirname, "../..");
const ISSUER = "https://issuer.example";
const SECRET = "notes-example-test-secret-0123456789abcdef";
const NOTES_URL = "https://app.example/api/notes";

/** A deployment whose primary endpoint (MCP_RESOURCE_URL) is WorldCrafter's, with an external issuer. */
const env = loadEnv({
  MCP_RESOURCE_URL: "https://app.example/api/mcp",
  MCP_AUTH_ISSUER: ISSUER,
  MCP_AUTH_HS256_SECRET: SECRET,
  MCP_AUTH_MODE: "required",
  MCP_LOG_REQUESTS: "0",
});

function tokenFor(audience: string, subject = "alice"): Promise<string> {
  return new SignJWT({ scope: "notes:write" })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET));
}

type Json = Record<string, unknown>;

/** The JSON-RPC answer of a response, whether JSON or an SSE stream (its last data line). */
async function answerOf(response: Response): Promise<Json> {
  const text = await response.text();
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(text) as Json;
  return JSON.parse(text.split("\n").filter((l) => l.startsWith("data:")).at(-1)!.slice(5)) as Json;
}

function post(body: Json, headers: Record<string, string>): Request {
  return new Request(NOTES_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("the notes example of docs/reusing-the-core.md", () => {
  it("its code blocks are the example's files, word for word", () => {
    const doc = readFileSync(join(ROOT, "docs/reusing-the-core.md"), "utf8");
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) {
      const path = /^\/\/ (examples\/\S+\.ts)/.exec(block)?.[1];
      expect(path, `a ts block of the doc names no example file: ${block.slice(0, 80)}`).toBeDefined();
      expect(block).toBe(readFileSync(join(ROOT, path!), "utf8"));
    }
  });

  it("serves tools/list and tools/call at 2025-11-25, in a session opened by initialize", async () => {
    const endpoint = createNotesEndpoint(env, createNotesResourceServer(env));
    const authorization = `Bearer ${await tokenFor(NOTES_URL, "bob")}`;
    const init = await endpoint.handle(
      post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } } }, { authorization }),
    );
    expect(init.status).toBe(200);
    expect(await answerOf(init)).toMatchObject({ result: { protocolVersion: "2025-11-25", serverInfo: { name: "notes" } } });
    const session = { authorization, "mcp-protocol-version": "2025-11-25", "mcp-session-id": init.headers.get("mcp-session-id")! };
    expect((await endpoint.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, session))).status).toBe(202);

    const list = await answerOf(await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session)));
    expect((list.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["add_note", "delete_note", "list_notes"]);

    const add = await answerOf(await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "add_note", arguments: { text: "buy milk" } } }, session)));
    expect(add.result).toMatchObject({ structuredContent: { note: { id: 1, text: "buy milk" }, count: 1 } });
    const missing = await answerOf(await endpoint.handle(post({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "delete_note", arguments: { id: 9 } } }, session)));
    expect(missing.result).toMatchObject({ isError: true, structuredContent: { error: { code: "not_found", message: "There is no note #9: list_notes shows the numbers." } } });
  });

  it("serves tools/list and tools/call at 2026-07-28, each request on its own", async () => {
    const endpoint = createNotesEndpoint(env, createNotesResourceServer(env));
    const authorization = `Bearer ${await tokenFor(NOTES_URL, "carol")}`;
    const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const call = async (id: number, method: string, params: Json, name?: string) =>
      answerOf(
        await endpoint.handle(
          post({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }, { authorization, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) }),
        ),
      );
    const list = await call(1, "tools/list", {});
    expect((list.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["add_note", "delete_note", "list_notes"]);
    await call(2, "tools/call", { name: "add_note", arguments: { text: "call mum" } }, "add_note");
    const listed = await call(3, "tools/call", { name: "list_notes", arguments: {} }, "list_notes");
    expect(listed.result).toMatchObject({ content: [{ type: "text", text: "#1: call mum" }], structuredContent: { notes: [{ id: 1, text: "call mum" }] } });
  });

  // Outside probe (2026-11-29): an endpoint built like the example kept a listen stream open past
  // SIGTERM (only WorldCrafter's route registered the shutdown), so the server could not exit.
  it("ends its open streams when the process is told to stop, as its route builds it", async () => {
    const out = execFileSync(process.execPath, [join(ROOT, "tests/support/notes-shutdown-child.mjs"), await tokenFor(NOTES_URL, "dora")], {
      env: { ...process.env, MCP_RESOURCE_URL: "https://app.example/api/mcp", MCP_AUTH_ISSUER: ISSUER, MCP_AUTH_HS256_SECRET: SECRET, MCP_AUTH_MODE: "required", MCP_LOG_REQUESTS: "0", MCP_RATE_LIMITS: "0" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out.trim().split("\n").at(-1)).toBe("ended");
  }, 40_000);
});
