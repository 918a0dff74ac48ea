import { describe, expect, it } from "vitest";
import { afterLifetime, endLongLivedStreams, refuseWhenShuttingDown } from "../../lib/mcp/transport/stream-clock";
import { McpError } from "../../lib/jsonrpc";

/**
 * The process going down (SIGTERM; tests/e2e/shutdown.test.ts drives it on a real server): every
 * stream with a lifetime ends at once, one begun later ends as soon as it is set up, and a new
 * GET stream or listen is refused 503 with Retry-After rather than opened to end at once (review).
 * Its own file: the clock's closing state is for the rest of the process.
 */
describe("stream-clock at shutdown", () => {
  it("ends every lifetime now, ends later ones at once, and refuses new long-lived streams", async () => {
    const ended: string[] = [];
    afterLifetime(280_000, () => ended.push("get stream"));
    afterLifetime(60_000, () => ended.push("listen"));
    expect(() => refuseWhenShuttingDown()).not.toThrow();

    endLongLivedStreams();
    expect(ended.sort()).toEqual(["get stream", "listen"]);

    afterLifetime(280_000, () => ended.push("opened after"));
    expect(ended).not.toContain("opened after");
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toContain("opened after");

    let refused: unknown;
    try {
      refuseWhenShuttingDown();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).httpStatus).toBe(503);
    expect((refused as McpError).headers).toMatchObject({ "Retry-After": "1" });
  });
});
