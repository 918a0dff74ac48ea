// A world export's download link (lib/worlds/files): the token is the whole capability.
import { serveDownload } from "@/lib/worlds/files/serve-download";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ token: string }> }): Promise<Response> {
  const { token } = await context.params;
  return serveDownload(token, request.signal);
}
