import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateDatabase, testSchema } from "./test-database";
import { statelessHeaders } from "./mcp-http";

/**
 * WorldCrafter's endpoint mounted in the test process (no Next.js) on a fresh, migrated database —
 * PostgreSQL or PGlite — with the product's own authorization: tokens required, signed by a
 * development issuer whose key lives in a temporary folder. Everything but the HTTP server is the
 * product's own code.
 */

const V = "2026-07-28";
const RESOURCE = "http://127.0.0.1/api/mcp";

export type DatabaseKind = "PostgreSQL" | "PGlite";
type Json = Record<string, unknown>;

export interface InProcessApp {
  /** One 2026-07-28 request as `subject`; resolves with the JSON-RPC result or error object. */
  request(subject: string, method: string, params?: Json): Promise<{ result?: Json; error?: { code: number; message: string } }>;
  close(): Promise<void>;
}

/**
 * Points this test process's database at a fresh one. Call before anything opens the database:
 * lib/db keeps one client per process, made from process.env on first use.
 */
async function freshDatabase(kind: DatabaseKind): Promise<() => Promise<void>> {
  if (kind === "PostgreSQL") {
    const schema = testSchema("wc_inproc");
    await migrateDatabase({ DATABASE_URL: schema.url });
    process.env.DATABASE_URL = schema.url;
    return schema.drop;
  }
  const dir = mkdtempSync(join(tmpdir(), "wc-inproc-"));
  await migrateDatabase({ PGLITE_DATA_DIR: dir });
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DATA_DIR = dir;
  return async () => rmSync(dir, { recursive: true, force: true });
}

export async function mountWorldcrafter(kind: DatabaseKind): Promise<InProcessApp> {
  const drop = await freshDatabase(kind);
  const issuerDir = mkdtempSync(join(tmpdir(), "wc-inproc-issuer-"));
  const [{ loadEnv }, { createMcpEndpoint }, { worldcrafterServer }, { closePrisma }, { resolveAuthSettings }, { createResourceServer }, { WORLD_SCOPES, Scope }, { worldcrafterResource }, devIssuer] = await Promise.all([
    import("../../lib/config/env"),
    import("../../lib/mcp"),
    import("../../lib/worlds/server-definition"),
    import("../../lib/db/prisma"),
    import("../../lib/auth/auth-settings"),
    import("../../lib/auth/resource-server"),
    import("../../lib/worlds/scopes"),
    import("../../lib/worlds/resource"),
    import("../../lib/authorization-server/key-file"),
  ]);
  const env = loadEnv({ ...process.env, MCP_LOG_REQUESTS: "0", MCP_AUTH_MODE: "required", MCP_RESOURCE_URL: RESOURCE, MCP_AUTH_KEYS_DIR: issuerDir, BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef" });
  // The built-in server's keys, straight from the folder: no better-auth in this process.
  const resourceServer = createResourceServer(resolveAuthSettings(env, WORLD_SCOPES, worldcrafterResource(env)), { jwks: () => devIssuer.publicJwks(issuerDir), metadata: async () => ({}) });
  const endpoint = createMcpEndpoint(worldcrafterServer, env, { access: resourceServer.access });
  await devIssuer.currentKeyRow(issuerDir);
  const tokens = new Map<string, string>();
  const tokenOf = async (subject: string) => {
    let token = tokens.get(subject);
    if (!token) {
      token = await devIssuer.signAccessToken(issuerDir, { issuer: new URL(RESOURCE).origin, audience: RESOURCE, subject, scopes: [Scope.Read, Scope.Write] });
      tokens.set(subject, token);
    }
    return token;
  };
  let id = 0;
  return {
    async request(subject, method, params = {}) {
      id += 1;
      const response = await endpoint.handle(
        new Request("http://127.0.0.1/api/mcp", {
          method: "POST",
          headers: {
            ...statelessHeaders(V, method, params),
            authorization: `Bearer ${await tokenOf(subject)}`,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method,
            params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } } },
          }),
        }),
      );
      const text = await response.text();
      // Calls that stream (progress) answer as SSE; the last data line is the response.
      const body = response.headers.get("content-type")?.startsWith("text/event-stream")
        ? JSON.parse(text.split("\n").filter((l) => l.startsWith("data:")).at(-1)!.slice(5))
        : JSON.parse(text);
      return body as { result?: Json; error?: { code: number; message: string } };
    },
    async close() {
      await closePrisma();
      await drop();
      rmSync(issuerDir, { recursive: true, force: true });
    },
  };
}
