/**
 * What the in-process scripts (core-inprocess.mjs, core-layers.mjs) share: the product endpoint
 * bundled as a deployed build bundles it, on a fresh migrated schema (for the audit rows
 * suggest_names writes), anonymous (MCP_AUTH_MODE=mixed) with limits off; and the one 2026-07-28
 * request they send, tools/call (suggest_names) or tools/list, from their command line:
 *
 *   <script> [tools/call|tools/list] [requests]
 *
 * Call `database.cleanup()` at the end: the schema is dropped there.
 */
import { importBundled } from "./core-bundle.mjs";
import { preparePostgres } from "./databases.mjs";

const MCP_URL = "http://127.0.0.1:3000/api/mcp";

/** `clientName` goes into the request's clientInfo, so server-side logs tell the scripts apart. */
export async function prepareCoreRequest(clientName) {
  const method = process.argv[2] ?? "tools/call";
  const requests = Number(process.argv[3] ?? 20_000);
  if (!["tools/call", "tools/list"].includes(method)) throw new Error(`method must be tools/call or tools/list, got ${method}`);
  if (!Number.isInteger(requests) || requests < 1) throw new Error("requests must be a positive integer");

  const database = await preparePostgres(process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test");
  Object.assign(process.env, {
    NODE_ENV: "production",
    MCP_AUTH_MODE: "mixed",
    BETTER_AUTH_SECRET: "bench-only-better-auth-secret-0123456789abcdef",
    MCP_RATE_LIMITS: "0",
    MCP_LOG_REQUESTS: "0",
    DATABASE_URL: database.serverEnv.DATABASE_URL,
  });
  const { worldcrafterEndpoint } = await importBundled("lib/worlds/endpoint.ts");
  const endpoint = worldcrafterEndpoint();

  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: clientName, version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const call = method === "tools/call" ? { name: "suggest_names", arguments: { style: "elvish", count: 3 } } : {};
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...call, _meta: meta } });
  const headers = {
    host: "127.0.0.1:3000",
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(call.name ? { "mcp-name": call.name } : {}),
  };
  /** A new Request of the one request (a body can be read once). */
  const build = () => new Request(MCP_URL, { method: "POST", headers, body });
  return { method, requests, database, endpoint, build };
}
