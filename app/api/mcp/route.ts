import { after } from "next/server";
import { worldcrafterEndpoint } from "@/lib/worlds/endpoint";
import { onProcessShutdown } from "@/lib/http/process-shutdown";

// Streams and per-request state: never prerender, always the Node runtime.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Background work (the audit log) runs after the response. Next's `after` keeps a serverless
 * instance alive for it; outside a request scope it throws, and the task simply runs now.
 */
function afterResponse(task: () => Promise<void>): void {
  try {
    after(task);
  } catch {
    void task();
  }
}

/** Thin adapter: Next hands us a web Request, the core returns a web Response. */
function handle(request: Request): Promise<Response> {
  // Built on first use, not at import: `next build` imports this module with no runtime config.
  return worldcrafterEndpoint({ afterResponse, onShutdown: onProcessShutdown }).handle(request);
}

export { handle as GET, handle as POST, handle as DELETE, handle as OPTIONS, handle as PUT, handle as PATCH, handle as HEAD };
