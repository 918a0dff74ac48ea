// The framework's ceiling for benchmarks: a bare route returning a fixed JSON body. Only with
// MCP_BENCH_ROUTES=1 (lib/bench/ceiling-routes.ts); otherwise 404.
import { ceiling } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceiling });
