// A world export's download link (lib/worlds/files): the token is the whole capability.
import { routeMethods } from "@/lib/http/route-methods";
import { serveDownload } from "@/lib/worlds/files/serve-download";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function download(request: Request, context: { params: Promise<{ token: string }> }): Promise<Response> {
  const { token } = await context.params;
  return serveDownload(token, request.signal);
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ GET: download });
