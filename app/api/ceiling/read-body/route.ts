// A second benchmark ceiling: the bare route plus reading the request body, which any JSON-RPC
// endpoint must do. The gap between the two ceilings is the framework's body-reading cost.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });

export async function POST(request: Request): Promise<Response> {
  await request.text();
  return new Response(BODY, { headers: { "content-type": "application/json" } });
}
