import { previewPage } from "../../lib/worlds/widgets/preview-page";

/** The widget preview page: a plain HTML document (its scripts are built by widgets/build.mjs). */
export function GET(): Response {
  return new Response(previewPage(), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}
