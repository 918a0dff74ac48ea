import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { newSubject, tokenFor } from "../support/auth";
import { connectClient } from "../support/sdk-client";

/**
 * The product's tools log what they change (docs/tools.md): a 2025-11-25 session (the SDK client
 * posts with Accept: application/json, text/event-stream, so messages arrive on the call's SSE
 * stream) receives notifications/message at or above its logging/setLevel, none below it, and none
 * before it chooses a level.
 */

const productUrl = () => `${inject("statefulUrl")}/api/mcp`;
type Json = Record<string, unknown>;

async function open() {
  const received: LoggingMessageNotification["params"][] = [];
  const token = await tokenFor(inject("statefulUrl"), newSubject("logging"));
  const { client } = await connectClient(productUrl(), {
    token,
    protocolVersion: "2025-11-25",
    setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params)),
  });
  const ok = async (name: string, args: Json) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(r.isError, JSON.stringify(r).slice(0, 300)).toBeFalsy();
    return r.structuredContent as Json;
  };
  return { client, received, ok };
}

describe("tool logging", () => {
  it("create_world logs at info naming the world when the level is info; nothing when it is error", async () => {
    const { client, received, ok } = await open();
    await client.setLoggingLevel("info");
    const name = `Logged ${randomUUID().slice(0, 8)}`;
    const world = (await ok("create_world", { name })).world as Json;
    expect(received).toEqual([{ level: "info", logger: "worldcrafter", data: `Created world ${JSON.stringify(name)} (id ${world.id as string})` }]);

    received.length = 0;
    await client.setLoggingLevel("error");
    await ok("create_world", { name: `${name} quiet` });
    expect(received).toEqual([]);
  });

  it("a session that never chose a level gets none of the tools' messages (its answers stay plain JSON)", async () => {
    const { received, ok } = await open();
    await ok("create_world", { name: `Unasked ${randomUUID().slice(0, 8)}` });
    expect(received).toEqual([]);
  });

  it("import_world of an export logs what it imported and warns that the name is now shared", async () => {
    const { client, received, ok } = await open();
    const name = `Twice ${randomUUID().slice(0, 8)}`;
    const original = ((await ok("create_world", { name })).world as Json).id as string;
    await ok("create_character", { worldId: original, name: "Ada" });
    const exported = (await client.callTool({ name: "export_world", arguments: { worldId: original } })) as CallToolResult;
    const json = (exported.content.find((b) => b.type === "resource" && b.resource.mimeType === "application/json") as { resource: { text: string } }).resource.text;

    await client.setLoggingLevel("debug");
    received.length = 0;
    const copy = ((await ok("import_world", { document: json })).world as Json).id as string;
    expect(received.map((m) => m.level)).toEqual(["debug", "info", "warning"]);
    expect(received[0]!.data).toMatch(/^Read a \d+-byte world file as json$/);
    expect(received[1]!.data).toBe(`Imported world ${JSON.stringify(name)} (id ${copy}): 1 character, 0 locations`);
    expect(received[2]!.data).toContain(`has the name of another world of yours (id ${original})`);
  });
});
