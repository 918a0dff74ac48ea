import { loadEnv } from "../../config/env";
import { worldcrafterResourceServer } from "../authorization";
import { downloadLinkKey } from "./link-key";
import { signDownloadToken, type ExportFileFormat } from "./download-token";

/**
 * Download links of a world's exports: `<public origin>/api/files/<token>`, where the public
 * origin is the resource URL's (MCP_RESOURCE_URL, else Vercel's production host, else this
 * machine — the same origin the OAuth metadata names), and each link's file reference in the
 * shape of the Apps SDK's file objects (`download_url`, `file_name`, `mime_type`; seed 002 "File
 * Parameter Handling", skybridge's FileRef), with when it stops working.
 */

export const DOWNLOAD_ROUTE = "/api/files/";

export const EXPORT_MIME_TYPES: Record<ExportFileFormat, string> = {
  md: "text/markdown; charset=utf-8",
  json: "application/json; charset=utf-8",
};

export interface FileReference {
  download_url: string;
  file_name: string;
  mime_type: string;
  /** ISO 8601: the link answers 404 from then on. */
  expires_at: string;
  format: ExportFileFormat;
}

/** The app's public origin, where its routes are served. */
export function publicOrigin(): string {
  return new URL(worldcrafterResourceServer().settings.resourceUrl).origin;
}

/**
 * A file name any file system and any Content-Disposition parser accepts: the world's name in
 * ASCII letters, digits, dots, dashes and underscores (accents dropped, anything else a dash),
 * at most 80 characters, never empty, never hidden.
 */
export function exportFileName(worldName: string, format: ExportFileFormat): string {
  const ascii = worldName.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const stem = ascii
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "")
    .slice(0, 80)
    .replace(/[.-]+$/, "");
  return `${stem || "world"}.${format}`;
}

/**
 * The file name in the world's own letters, for a name with non-ASCII ones (which the ASCII name
 * loses, "世界" → "world.md"): letters, marks, digits, dots, dashes and underscores, anything else
 * a dash, at most 80 characters; undefined when the ASCII name says it all or nothing is left.
 */
function unicodeFileName(worldName: string, format: ExportFileFormat): string | undefined {
  if (!/[^\u0000-\u007f]/.test(worldName)) return undefined;
  const stem = [...worldName.normalize("NFC").replace(/[^\p{L}\p{M}\p{N}._-]+/gu, "-").replace(/^[.-]+|[.-]+$/g, "")].slice(0, 80).join("").replace(/[.-]+$/, "");
  return stem ? `${stem}.${format}` : undefined;
}

/** The name a download is saved under: the one the tool's answer and Content-Disposition both give. */
export function downloadFileName(worldName: string, format: ExportFileFormat): string {
  return unicodeFileName(worldName, format) ?? exportFileName(worldName, format);
}

/**
 * The Content-Disposition of an export: the ASCII file name, and beside it the Unicode one when
 * there is one, as `filename*` (RFC 6266 §4.3, RFC 8187 encoding); clients that know it prefer it.
 */
export function contentDisposition(worldName: string, format: ExportFileFormat): string {
  const ascii = `attachment; filename="${exportFileName(worldName, format)}"`;
  const unicode = unicodeFileName(worldName, format);
  if (!unicode) return ascii;
  // encodeURIComponent leaves ' ( ) * as they are; RFC 8187's attr-char does not allow them.
  const encoded = encodeURIComponent(unicode).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${ascii}; filename*=UTF-8''${encoded}`;
}

/** Signed, expiring links to both exports of `worldId` for `subject`. */
export async function exportFileReferences(subject: string, world: { id: string; name: string }, now = Date.now()): Promise<FileReference[]> {
  const env = loadEnv();
  const key = await downloadLinkKey(env);
  const expiresAt = new Date(now + env.MCP_DOWNLOAD_LINK_TTL_SECONDS * 1000);
  // The token carries whole seconds: report the moment it really ends.
  const ends = new Date(Math.floor(expiresAt.getTime() / 1000) * 1000);
  const origin = publicOrigin();
  return (["md", "json"] as const).map((format) => ({
    download_url: `${origin}${DOWNLOAD_ROUTE}${signDownloadToken(key, { subject, worldId: world.id, format, expiresAt })}`,
    // The name the download's Content-Disposition gives, so what the host shows is what is saved.
    file_name: downloadFileName(world.name, format),
    mime_type: EXPORT_MIME_TYPES[format].split(";")[0] as string,
    expires_at: ends.toISOString(),
    format,
  }));
}
