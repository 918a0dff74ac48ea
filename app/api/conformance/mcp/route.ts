import { after } from "next/server";
import { conformanceEndpoint } from "@/lib/conformance/endpoint";
import { onProcessShutdown } from "@/lib/http/process-shutdown";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Task runs continue after the response (`after` keeps a serverless instance alive for them). */
function afterResponse(work: () => Promise<void>): void {
  try {
    after(work);
  } catch {
    void work();
  }
}

/** Exists only when MCP_CONFORMANCE_FIXTURES=1; otherwise indistinguishable from no route. */
function handle(request: Request): Promise<Response> {
  const endpoint = conformanceEndpoint({ afterResponse, onShutdown: onProcessShutdown });
  if (!endpoint) return Promise.resolve(new Response("Not Found", { status: 404 }));
  return endpoint.handle(request);
}

export { handle as GET, handle as POST, handle as DELETE, handle as OPTIONS, handle as PUT, handle as PATCH, handle as HEAD };
