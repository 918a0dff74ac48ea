// The framework's ceiling for benchmarks: a bare route returning a fixed JSON body.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });

export function POST(): Response {
  return new Response(BODY, { headers: { "content-type": "application/json" } });
}
