// Liveness and readiness: 200 when the database (and Redis, when configured) answer, else 503.
// `?probe=live` answers liveness alone, touching nothing.
import { loadEnv } from "@/lib/config/env";
import { routeMethods } from "@/lib/http/route-methods";
import { healthReport } from "@/lib/worlds/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const HEADERS = { "content-type": "application/json", "cache-control": "no-store" } as const;

async function health(request: Request): Promise<Response> {
  if (new URL(request.url).searchParams.get("probe") === "live") return new Response(JSON.stringify({ status: "ok", live: true }), { headers: HEADERS });
  const report = await healthReport(loadEnv());
  return new Response(JSON.stringify(report), { status: report.ready ? 200 : 503, headers: HEADERS });
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ GET: health });
