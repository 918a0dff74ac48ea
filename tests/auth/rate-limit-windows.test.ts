import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startAnotherInstance, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the authorization server's per-address limits are windows that end. A
 * steady stream of requests under the limit is never refused, however long it lasts; a burst over
 * it is, on whichever instance each request lands (the counts are in the database).
 *
 * better-auth 1.7.5's own storage moved a count's start to every allowed request and began a new
 * count only after a whole quiet window: "5 sign-ins per 10 s" refused the sixth of a stream of
 * one every 3 s, and a host's steady token traffic was refused after its 600th request in all
 * (outside review, 2026-11-28). Every rule shares the storage (lib/authorization-server/request-
 * counts.ts); the sign-in rule is the one whose window a test can wait out.
 */

/** MCP_AUTH_SIGN_IN_WINDOW_SECONDS here, and the sign-ins allowed per address in it (five accounts' worth of one attempt: settings.ts). */
const WINDOW_SECONDS = 10;
const PER_ADDRESS = 5;

let as: AuthServerUnderTest;
let other: RunningNextServer;

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "1", MCP_AUTH_SIGN_IN_ATTEMPTS: "1", MCP_AUTH_SIGN_IN_WINDOW_SECONDS: String(WINDOW_SECONDS) });
  other = await startAnotherInstance(as);
}, 180_000);

afterAll(async () => {
  await other?.stop();
  await as?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A sign-in for an account no one has (401 when allowed: one attempt for each, so the per-account limit never speaks). */
async function signIn(base: string): Promise<Response> {
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: as.origin },
    body: JSON.stringify({ email: `nobody-${randomUUID().slice(0, 8)}@example.com`, password: "wrong password here" }),
  });
  await res.arrayBuffer();
  return res;
}

describe("per-address limits are fixed windows, counted for every instance", () => {
  it("a burst over the limit is refused, though its requests alternate between two instances", async () => {
    const answers: Response[] = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++) answers.push(await signIn(i % 2 === 0 ? as.origin : other.url));
    expect(answers.map((res) => res.status)).toEqual([...Array<number>(PER_ADDRESS).fill(401), 429, 429]);
    const retryAfter = Number(answers.at(-1)!.headers.get("x-retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  }, 30_000);

  it("steady traffic under the limit is never refused: four sign-ins in every window, for three windows", async () => {
    // The burst's window ends; so would a count that restarted only after a quiet window.
    await sleep((WINDOW_SECONDS + 1) * 1000);
    const statuses: number[] = [];
    // One every 2.6 s: at most four in any 10 s, whatever the windows' phase.
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      statuses.push((await signIn(i % 2 === 0 ? as.origin : other.url)).status);
      await sleep(Math.max(0, 2600 - (Date.now() - started)));
    }
    expect(statuses).toEqual(Array<number>(10).fill(401));
  }, 60_000);
});
