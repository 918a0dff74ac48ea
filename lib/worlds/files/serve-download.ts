import { loadEnv } from "../../config/env";
import { logUnexpected } from "../../mcp/runtime/request-log";
import { exportWorld } from "../export/world-export";
import { NotFoundError } from "../data/errors";
import { downloadLinkKey } from "./link-key";
import { verifyDownloadToken } from "./download-token";
import { EXPORT_MIME_TYPES, contentDisposition } from "./download-link";

/**
 * GET /api/files/<token>: the export a download link names, made afresh for the link's owner.
 * A forged, altered or expired token, and a world its owner no longer has, all get the same 404
 * (one body, one set of headers), so a link says nothing about why it does not open.
 */

const PRIVATE_HEADERS = {
  "cache-control": "private, no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

function notFound(): Response {
  return new Response("Not found: this download link is invalid or has expired. Export the world again for a new link.\n", {
    status: 404,
    headers: { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}

/**
 * An export that failed (the database down, a bug): logged, and answered with the private headers
 * all the route's answers carry, not the framework's bare 500.
 */
function failed(thrown: unknown): Response {
  logUnexpected("download link: the export", thrown);
  return new Response("The export could not be made just now. Try the link again in a moment.\n", {
    status: 500,
    headers: { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}

export async function serveDownload(token: string, signal: AbortSignal): Promise<Response> {
  const env = loadEnv();
  const grant = verifyDownloadToken(await downloadLinkKey(env), token, env.MCP_DOWNLOAD_LINK_TTL_SECONDS);
  if (!grant) return notFound();
  let exported: Awaited<ReturnType<typeof exportWorld>> | undefined;
  try {
    exported = await exportWorld(grant.subject, grant.worldId, { signal });
  } catch (thrown) {
    if (!(thrown instanceof NotFoundError)) return failed(thrown);
  }
  if (!exported) return notFound();
  const body = grant.format === "md" ? exported.markdown : exported.json;
  return new Response(body, {
    status: 200,
    headers: {
      ...PRIVATE_HEADERS,
      "content-type": EXPORT_MIME_TYPES[grant.format],
      "content-disposition": contentDisposition(exported.world.name, grant.format),
    },
  });
}
