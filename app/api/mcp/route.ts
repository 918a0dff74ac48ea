import { worldcrafterEndpoint } from "@/lib/worlds/endpoint";

// Streams and per-request state: never prerender, always the Node runtime.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Thin adapter: Next hands us a web Request, the core returns a web Response. */
function handle(request: Request): Promise<Response> {
  return worldcrafterEndpoint().handle(request);
}

export { handle as GET, handle as POST, handle as DELETE, handle as OPTIONS, handle as PUT, handle as PATCH, handle as HEAD };
