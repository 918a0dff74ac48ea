import { routeMethods } from "../../lib/http/route-methods";
import { previewPage } from "../../lib/worlds/widgets/preview-page";

/** The widget preview page: a plain HTML document (its scripts are built by widgets/build.mjs). */
function preview(): Response {
  return new Response(previewPage(), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ GET: preview });
