// The framework's ceiling for benchmarks: a bare route returning a fixed JSON body. Only with
// MCP_BENCH_ROUTES=1 (lib/http/bench-ceiling.ts); otherwise 404.
import { ceiling } from "@/lib/http/bench-ceiling";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { ceiling as POST };
