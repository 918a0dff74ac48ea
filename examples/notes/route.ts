// examples/notes/route.ts: in an app, app/api/notes/route.ts. Next hands the core a web Request; the core answers with a web Response.
import { notesEndpoint } from "@/examples/notes/endpoint";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handle(request: Request): Promise<Response> {
  return notesEndpoint().handle(request);
}

export { handle as GET, handle as POST, handle as DELETE, handle as OPTIONS, handle as PUT, handle as PATCH, handle as HEAD };
