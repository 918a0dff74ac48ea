// A second benchmark ceiling: the bare route plus reading the request body, which any JSON-RPC
// endpoint must do. The gap between the two ceilings is the framework's body-reading cost.
// Only with MCP_BENCH_ROUTES=1, and bounded by MCP_MAX_BODY_BYTES (lib/bench/ceiling-routes.ts).
import { ceilingReadBody } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceilingReadBody });
