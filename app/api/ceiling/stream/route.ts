// The benchmark's floor for idle streams: the bare route holding an SSE response open, with
// keep-alives, and nothing else. Only with MCP_BENCH_ROUTES=1 (lib/bench/ceiling-routes.ts); otherwise 404.
import { ceilingStream } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceilingStream });
