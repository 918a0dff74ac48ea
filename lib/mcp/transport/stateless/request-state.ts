import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { SpentStateStore } from "../../cluster/stores";

/**
 * `requestState` for multi-round-trip requests (2026-07-28 basic/patterns/mrtr): everything the
 * next round needs, carried by the client and opaque to it. It is treated as attacker-controlled:
 * HMAC-SHA256 with a server secret, short-lived, bound to the request it continues (method,
 * target and a digest of the arguments) and to the caller, and single-use.
 *
 * Format: base64url(JSON payload) "." base64url(HMAC(secret, first part)).
 */
export interface StatePayload {
  v: 1;
  /** Method and target (tool or prompt name, resource uri) the state continues. */
  m: string;
  t: string;
  /** SHA-256 of the canonical JSON of the arguments. */
  h: string;
  /** The authenticated subject, or "" for anonymous callers. */
  s: string;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Single-use nonce. */
  n: string;
  /** Answers collected in earlier rounds, by input request key. */
  a: Record<string, unknown>;
  /**
   * The keys of the questions this state's InputRequiredResult asked: the only inputResponses its
   * retry may bring. A client cannot answer a later round's question (a confirmation) before it
   * was shown.
   */
  q: string[];
}

export interface RequestBinding {
  method: string;
  target: string;
  args: unknown;
  subject: string | undefined;
}

export type { SpentStateStore } from "../../cluster/stores";

/** An HMAC-SHA256 in base64url without padding: 43 characters of its alphabet, nothing else. */
const SIGNATURE_TEXT = /^[A-Za-z0-9_-]{43}$/;

export class MemorySpentStateStore implements SpentStateStore {
  private readonly spent = new Map<string, number>();

  spend(nonce: string, expiresAt: number): boolean {
    const now = Date.now();
    if (this.spent.size > 10_000) for (const [n, exp] of this.spent) if (exp <= now) this.spent.delete(n);
    if (this.spent.has(nonce)) return false;
    this.spent.set(nonce, expiresAt);
    return true;
  }
}

/** JSON with object keys sorted, so the same arguments always hash the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function digestArgs(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args ?? {})).digest("base64url");
}

export type StateCheck = { ok: true; answers: Record<string, unknown>; asked: readonly string[] } | { ok: false; reason: string };

export class RequestStateCodec {
  constructor(
    private readonly secret: Buffer,
    private readonly ttlMs: number,
    private readonly spent: SpentStateStore,
  ) {}

  private sign(body: string): string {
    return createHmac("sha256", this.secret).update(body).digest("base64url");
  }

  issue(binding: RequestBinding, answers: Record<string, unknown>, asked: readonly string[]): string {
    const payload: StatePayload = {
      v: 1,
      m: binding.method,
      t: binding.target,
      h: digestArgs(binding.args),
      s: binding.subject ?? "",
      exp: Date.now() + this.ttlMs,
      n: randomBytes(12).toString("base64url"),
      a: answers,
      q: [...asked],
    };
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.sign(body)}`;
  }

  /** Verify signature, expiry, binding and single use; the reason is for the error message. */
  async verify(state: string, binding: RequestBinding): Promise<StateCheck> {
    const dot = state.indexOf(".");
    if (dot <= 0 || state.length > 256 * 1024) return { ok: false, reason: "malformed" };
    const body = state.slice(0, dot);
    // The signature's exact text: base64url decoding skips characters outside its alphabet ("<sig>!!"
    // decodes as "<sig>" does), and Latin-1 keeps a character's low byte only (U+0134 reads as "4").
    // After the alphabet check every character is one ASCII byte (outside audit and review, 2026-11-27).
    const signature = state.slice(dot + 1);
    if (!SIGNATURE_TEXT.test(signature)) return { ok: false, reason: "signature mismatch" };
    const given = Buffer.from(signature, "ascii");
    const expected = Buffer.from(this.sign(body), "ascii");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "signature mismatch" };
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as StatePayload;
    } catch {
      return { ok: false, reason: "malformed" };
    }
    if (payload.v !== 1 || typeof payload.exp !== "number" || typeof payload.a !== "object" || payload.a === null || !Array.isArray(payload.q) || !payload.q.every((k) => typeof k === "string")) {
      return { ok: false, reason: "malformed" };
    }
    if (payload.exp <= Date.now()) return { ok: false, reason: "expired" };
    if (payload.m !== binding.method || payload.t !== binding.target || payload.h !== digestArgs(binding.args)) {
      return { ok: false, reason: "issued for a different request" };
    }
    if (payload.s !== (binding.subject ?? "")) return { ok: false, reason: "issued to a different caller" };
    if (!(await this.spent.spend(payload.n, payload.exp))) return { ok: false, reason: "already used" };
    return { ok: true, answers: payload.a, asked: payload.q };
  }
}
