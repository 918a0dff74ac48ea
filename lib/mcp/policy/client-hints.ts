import { z } from "zod";
import type { Meta } from "../protocol/types";

/**
 * Advisory context a host sends in request `_meta` (seed 002 §client-supplied request metadata):
 * user agent, coarse location, an anonymized subject and conversation id. Hints are for
 * formatting and analytics only — never for authorization — and a malformed or missing hint is
 * simply absent: the call goes on without it.
 */
export interface ClientHints {
  userAgent?: string;
  userLocation?: UserLocation;
  /** ChatGPT's anonymized user id (`openai/subject`): a rate-limit key, not an identity. */
  subject?: string;
  /** ChatGPT's anonymized conversation id (`openai/session`). */
  conversation?: string;
}

const Text = z.string().trim().min(1).max(256);

const UserLocationSchema = z.object({
  city: Text.optional().catch(undefined),
  region: Text.optional().catch(undefined),
  country: Text.optional().catch(undefined),
  timezone: Text.refine(isTimeZone).optional().catch(undefined),
  latitude: z.number().min(-90).max(90).optional().catch(undefined),
  longitude: z.number().min(-180).max(180).optional().catch(undefined),
});

export type UserLocation = z.infer<typeof UserLocationSchema>;

export const HintKey = {
  UserAgent: "openai/userAgent",
  UserLocation: "openai/userLocation",
  Subject: "openai/subject",
  Session: "openai/session",
} as const;

/** An IANA zone name the runtime knows ("Europe/Paris"); anything else is dropped. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function text(value: unknown): string | undefined {
  const parsed = Text.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function readClientHints(meta: Meta): ClientHints {
  const hints: ClientHints = {};
  const userAgent = text(meta[HintKey.UserAgent]);
  if (userAgent) hints.userAgent = userAgent;
  const location = UserLocationSchema.safeParse(meta[HintKey.UserLocation]);
  if (location.success && Object.values(location.data).some((v) => v !== undefined)) {
    hints.userLocation = Object.fromEntries(Object.entries(location.data).filter(([, v]) => v !== undefined)) as UserLocation;
  }
  const subject = text(meta[HintKey.Subject]);
  if (subject) hints.subject = subject;
  const conversation = text(meta[HintKey.Session]);
  if (conversation) hints.conversation = conversation;
  return hints;
}
