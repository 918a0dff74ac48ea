import { loadEnv } from "../../config/env";
import { logUnexpected } from "../../log/operator-log";
import { McpError } from "../../jsonrpc";
import { spendOne, subjectKey, type RequestLimiter } from "../../mcp/policy/rate-limit";
import { worldcrafterLimiter } from "../request-limiter";
import { exportWorld } from "../export/world-export";
import { EXPORT_TOOL_NAME } from "../export/export-tool-name";
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

/** Every answer but the export itself: a line of plain text, with the private headers. */
function plainText(status: number, text: string, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(`${text}\n`, { status, headers: { ...PRIVATE_HEADERS, ...headers, "content-type": "text/plain; charset=utf-8" } });
}

function notFound(): Response {
  return plainText(404, "Not found: this download link is invalid or has expired. Export the world again for a new link.");
}

/**
 * An export that failed (the database down, a bug): logged, and answered with the private headers
 * all the route's answers carry, not the framework's bare 500.
 */
function failed(thrown: unknown): Response {
  logUnexpected("download link: the export", thrown);
  return plainText(500, "The export could not be made just now. Try the link again in a moment.");
}

/**
 * A download renders the whole export again, so it spends what an export_world call spends (its
 * own budget if MCP_RATE_LIMIT_TOOLS gives it one, and tools/call's), from the link's owner: a link
 * is reusable by whoever holds it, and without a budget one link rebuilt a 1.4 MB export as fast as
 * it was asked and held the database from every other user (outside audit).
 */
async function spendExportBudget(limiter: RequestLimiter | undefined, subject: string): Promise<Response | undefined> {
  if (!limiter) return undefined;
  try {
    await spendOne(limiter, { method: "tools/call", tool: EXPORT_TOOL_NAME, caller: subjectKey(subject) });
    return undefined;
  } catch (thrown) {
    if (!(thrown instanceof McpError)) throw thrown;
    const retryAfter = (thrown.data as { retryAfter?: unknown } | undefined)?.retryAfter;
    const when = typeof retryAfter === "number" ? `in ${retryAfter} s` : "in a moment";
    return plainText(thrown.httpStatus ?? 429, `Too many exports of this world's owner just now: try the link again ${when}.`, thrown.headers);
  }
}

export async function serveDownload(token: string, signal: AbortSignal): Promise<Response> {
  const env = loadEnv();
  const grant = verifyDownloadToken(await downloadLinkKey(env), token, env.MCP_DOWNLOAD_LINK_TTL_SECONDS);
  if (!grant) return notFound();
  const refusal = await spendExportBudget(worldcrafterLimiter(env), grant.subject);
  if (refusal) return refusal;
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
