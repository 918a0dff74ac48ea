/**
 * A session's newest GET stream is the one its messages go to (standalone-streams.ts): an older
 * one is superseded. Resuming the older one with Last-Event-ID replays what it kept and goes on
 * as the session's GET stream, as a resume of one given up after the grace period does
 * (docs/edge.md); before, it answered `: resumed` and stayed silent until its lifetime ended,
 * holding a stream slot, while notifications went to the other stream.
 */
import { describe, expect, inject, it } from "vitest";
import { post } from "../support/mcp-http";
import { initialize, methodOf, openStream, request } from "../support/raw-sessions";

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;

describe("resuming a superseded GET stream", () => {
  it("replays, then carries the session's messages from now on", async () => {
    const { headers } = await initialize(fixtureUrl());
    await post(fixtureUrl(), { jsonrpc: "2.0", method: "notifications/initialized" }, headers);

    const first = await openStream(fixtureUrl(), { method: "GET", headers });
    const firstId = (await first.reader.next())?.id;
    expect(firstId).toBeTruthy();
    const second = await openStream(fixtureUrl(), { method: "GET", headers });
    await second.reader.next();

    const resumed = await openStream(fixtureUrl(), { method: "GET", headers: { ...headers, "last-event-id": firstId ?? "" } });
    await request(fixtureUrl(), headers, "tools/call", { name: "test_trigger_tool_change", arguments: {} });
    const heard = await resumed.reader.until((e) => methodOf(e) === "notifications/tools/list_changed", 5_000);
    expect(heard.id).toBeTruthy();
  });
});
