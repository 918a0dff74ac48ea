import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  MemorySpentStateStore,
  RequestStateCodec,
  digestArgs,
  type RequestBinding,
  type StatePayload,
} from "../../lib/mcp/transport/stateless/request-state";

/**
 * The 2026-07-28 requestState codec on its own (basic/patterns/mrtr): a state is signed, expires,
 * is bound to the request it continues and to the caller, and can be spent once. The HTTP tests
 * (tests/http/stateless-era.test.ts) check the same properties through the transport.
 */

const binding: RequestBinding = {
  method: "tools/call",
  target: "test_input_required_result_elicitation",
  args: { b: 2, a: [1, { y: true, x: null }] },
  subject: undefined,
};

const answers = { user_name: { action: "accept", content: { name: "Alice" } } };

function codec(ttlMs = 60_000, secret: Buffer = randomBytes(32)): RequestStateCodec {
  return new RequestStateCodec(secret, ttlMs, new MemorySpentStateStore());
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Decode the payload part of a state (it is opaque to clients, but not secret). */
function payloadOf(state: string): StatePayload {
  const [body] = state.split(".");
  return JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8")) as StatePayload;
}

/** Re-encode a payload under the original signature (what an attacker without the key can do). */
function withPayload(state: string, change: (payload: StatePayload) => StatePayload): string {
  const signature = state.slice(state.indexOf(".") + 1);
  const body = Buffer.from(JSON.stringify(change(payloadOf(state)))).toString("base64url");
  return `${body}.${signature}`;
}

/** Replace the character at `index` with a different base64url character. */
function flipAt(value: string, index: number): string {
  const c = value[index];
  return `${value.slice(0, index)}${c === "A" ? "B" : "A"}${value.slice(index + 1)}`;
}

/** The keys the state's round asked: the only answers its retry may bring. */
const ASKED = ["confirm"];

describe("RequestStateCodec", () => {
  it("round-trips: a fresh state for the same request and caller gives back the answers", async () => {
    const states = codec();
    const state = states.issue(binding, answers, ASKED);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const checked = await states.verify(state, { ...binding });
    expect(checked).toEqual({ ok: true, answers, asked: ASKED });
  });

  it("binds the arguments by content, not by key order", async () => {
    const states = codec();
    const state = states.issue(binding, {}, ASKED);
    const reordered: RequestBinding = { ...binding, args: { a: [1, { x: null, y: true }], b: 2 } };
    expect(digestArgs(reordered.args)).toBe(digestArgs(binding.args));
    expect(await states.verify(state, reordered)).toEqual({ ok: true, answers: {}, asked: ASKED });
  });

  it("the payload carries the binding, an expiry and a nonce", () => {
    const before = Date.now();
    const payload = payloadOf(codec(5_000).issue({ ...binding, subject: "user-1" }, answers, ASKED));
    expect(payload).toMatchObject({ v: 1, m: binding.method, t: binding.target, h: digestArgs(binding.args), s: "user-1", a: answers, q: ASKED });
    expect(payload.exp).toBeGreaterThanOrEqual(before + 5_000);
    expect(payload.exp).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(typeof payload.n).toBe("string");
    expect(payload.n.length).toBeGreaterThan(0);
  });

  it("refuses an expired state with reason \"expired\"", async () => {
    const states = codec(1);
    const state = states.issue(binding, answers, ASKED);
    await sleep(10);
    expect(await states.verify(state, binding)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a state issued to another subject (and an anonymous one presented by a subject)", async () => {
    const states = codec();
    const mine = states.issue({ ...binding, subject: "alice" }, answers, ASKED);
    expect(await states.verify(mine, { ...binding, subject: "mallory" })).toEqual({ ok: false, reason: "issued to a different caller" });
    expect(await states.verify(mine, { ...binding, subject: undefined })).toEqual({ ok: false, reason: "issued to a different caller" });
    const anonymous = states.issue(binding, answers, ASKED);
    expect(await states.verify(anonymous, { ...binding, subject: "alice" })).toEqual({ ok: false, reason: "issued to a different caller" });
  });

  it("refuses a state presented for another method, target or arguments", async () => {
    const states = codec();
    for (const other of [
      { ...binding, method: "prompts/get" },
      { ...binding, target: "test_input_required_result_request_state" },
      { ...binding, args: { b: 3, a: [1, { y: true, x: null }] } },
      { ...binding, args: {} },
    ]) {
      const state = states.issue(binding, answers, ASKED);
      expect(await states.verify(state, other)).toEqual({ ok: false, reason: "issued for a different request" });
    }
  });

  it("refuses tampered states: payload, signature, appended junk, a forged payload, another key", async () => {
    const states = codec();
    const state = states.issue(binding, answers, ASKED);
    const dot = state.indexOf(".");
    const tampered = [
      flipAt(state, 5), // inside the payload
      flipAt(state, dot + 1), // first character of the signature (the last one may carry only padding bits)
      `${state}junk`,
      `${state}.x`,
      withPayload(state, (p) => ({ ...p, exp: p.exp + 3_600_000 })),
      withPayload(state, (p) => ({ ...p, a: { user_name: { action: "accept", content: { name: "Mallory" } } } })),
      codec().issue(binding, answers, ASKED), // signed with another secret
    ];
    for (const forged of tampered) {
      expect(await states.verify(forged, binding), forged.slice(0, 40)).toEqual({ ok: false, reason: "signature mismatch" });
    }
    // The untouched state is still good afterwards: failed attempts do not spend it.
    expect(await states.verify(state, binding)).toEqual({ ok: true, answers, asked: ASKED });
  });

  it("refuses malformed states", async () => {
    const states = codec();
    for (const junk of ["", "no-dot-at-all", ".leading-dot", "x".repeat(300 * 1024) + ".y"]) {
      expect(await states.verify(junk, binding)).toEqual({ ok: false, reason: "malformed" });
    }
  });

  it("refuses a spent nonce: every state is good exactly once", async () => {
    const states = codec();
    const state = states.issue(binding, answers, ASKED);
    expect((await states.verify(state, binding)).ok).toBe(true);
    expect(await states.verify(state, binding)).toEqual({ ok: false, reason: "already used" });
    expect(await states.verify(state, binding)).toEqual({ ok: false, reason: "already used" });
    // Two states for the same request are independent.
    const a = states.issue(binding, answers, ASKED);
    const b = states.issue(binding, answers, ASKED);
    expect(a).not.toBe(b);
    expect((await states.verify(b, binding)).ok).toBe(true);
    expect((await states.verify(a, binding)).ok).toBe(true);
  });

  it("shares the spent set between codecs that share a store and a secret (several instances)", async () => {
    const secret = randomBytes(32);
    const spent = new MemorySpentStateStore();
    const one = new RequestStateCodec(secret, 60_000, spent);
    const two = new RequestStateCodec(secret, 60_000, spent);
    const state = one.issue(binding, answers, ASKED);
    expect(await two.verify(state, binding)).toEqual({ ok: true, answers, asked: ASKED });
    expect(await one.verify(state, binding)).toEqual({ ok: false, reason: "already used" });
  });
});

describe("Mcp-Param integer comparison", () => {
  it("accepts decimal forms of the integer and nothing else", async () => {
    const { headerMatches } = await import("../../lib/mcp/transport/stateless/header-value");
    expect(headerMatches("42", 42)).toBe(true);
    expect(headerMatches("42.0", 42)).toBe(true);
    expect(headerMatches("-7", -7)).toBe(true);
    for (const form of ["0x2A", "4.2e1", "0b101010", " 42", "", "42.5"]) expect(headerMatches(form, 42)).toBe(false);
  });
});
