// The benchmark's like-for-like floor for tools/list: the bare route plus reading the body, then
// the bytes of an anonymous 2026-07-28 tools/list page (recorded once from the MCP endpoint, then
// replayed). Only with MCP_BENCH_ROUTES=1 (lib/bench/ceiling-routes.ts); otherwise 404.
import { ceilingReplay } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";
import { Header } from "@/lib/mcp/protocol/http-headers";
import { MetaKey } from "@/lib/mcp/protocol/meta-keys";
import { STATELESS_ERA_VERSIONS } from "@/lib/mcp/protocol/protocol-versions";
import { worldcrafterEndpoint } from "@/lib/worlds/endpoint";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const [VERSION] = STATELESS_ERA_VERSIONS;

function recordToolsList(): Promise<Response> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [MetaKey.ProtocolVersion]: VERSION, [MetaKey.ClientCapabilities]: {} } } });
  const headers = { [Header.ContentType]: "application/json", [Header.Accept]: "application/json, text/event-stream", [Header.ProtocolVersion]: VERSION, [Header.Method]: "tools/list" };
  return worldcrafterEndpoint().handle(new Request("http://127.0.0.1/api/mcp", { method: "POST", headers, body }));
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceilingReplay(recordToolsList) });
