import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/**
 * The token of a download link: who may download which export of which world until when, signed
 * with HMAC-SHA256 so none of it can be changed. It is the whole capability (a browser opening
 * the link carries no bearer token), so it is short-lived and names its owner: the route
 * regenerates the export for that owner, and a world the owner no longer has is not found.
 *
 * Format: base64url(JSON payload) "." base64url(HMAC(key, first part)).
 */

export const EXPORT_FILE_FORMATS = ["md", "json"] as const;
export type ExportFileFormat = (typeof EXPORT_FILE_FORMATS)[number];

const MAX_SUBJECT = 512;
const MAX_WORLD_ID = 64;

const Payload = z.object({
  v: z.literal(1),
  /** The owner's subject. */
  s: z.string().min(1).max(MAX_SUBJECT),
  /** The world's id. */
  w: z.string().min(1).max(MAX_WORLD_ID),
  f: z.enum(EXPORT_FILE_FORMATS),
  /** Expiry, seconds since the epoch. */
  e: z.number().int().positive(),
});

export interface DownloadGrant {
  subject: string;
  worldId: string;
  format: ExportFileFormat;
  expiresAt: Date;
}

/**
 * Longest token read: anything longer is not one of ours (and is not parsed). It is the longest
 * token signDownloadToken can make: every character of the subject and the world id written as a
 * six-character `\uXXXX` escape (JSON.stringify does that to control characters and lone
 * surrogates), the other members in at most 64 bytes, base64url, a dot and the 43-character MAC.
 * A fixed 2 KB used to be shorter than a token for a valid subject of 256 control characters:
 * its link was refused as soon as it was issued (outside probe, 2026-11-29).
 */
export const MAX_TOKEN = Math.ceil((6 * (MAX_SUBJECT + MAX_WORLD_ID) + 64) / 3) * 4 + 1 + 43;

const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest();

export function signDownloadToken(key: Buffer, grant: DownloadGrant): string {
  const payload: z.infer<typeof Payload> = { v: 1, s: grant.subject, w: grant.worldId, f: grant.format, e: Math.floor(grant.expiresAt.getTime() / 1000) };
  const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  return `${body}.${mac(key, body).toString("base64url")}`;
}

/** Expiries this far past `now + maxTtlSeconds` are still accepted: clocks of several instances differ a little. */
export const CLOCK_SKEW_SECONDS = 60;

/**
 * The grant a token carries when its signature holds, it has not expired, and it ends no later
 * than a link signed now would (plus clock skew); undefined otherwise, whatever the reason.
 */
export function verifyDownloadToken(key: Buffer, token: string, maxTtlSeconds: number, now = Date.now()): DownloadGrant | undefined {
  if (token.length > MAX_TOKEN) return undefined;
  const dot = token.indexOf(".");
  if (dot <= 0) return undefined;
  const body = token.slice(0, dot);
  // Compared as text against the canonical encoding: base64url decoding is lenient (padding,
  // a last character's unused bits), and a changed token must not verify.
  const given = Buffer.from(token.slice(dot + 1), "utf8");
  const expected = Buffer.from(mac(key, body).toString("base64url"), "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const payload = Payload.safeParse(parsed);
  if (!payload.success || payload.data.e * 1000 <= now) return undefined;
  if (payload.data.e * 1000 > now + (maxTtlSeconds + CLOCK_SKEW_SECONDS) * 1000) return undefined;
  return { subject: payload.data.s, worldId: payload.data.w, format: payload.data.f, expiresAt: new Date(payload.data.e * 1000) };
}
