import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { callTool, eraClient, type EraClient } from "../support/both-eras";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startOwnServer } from "../support/own-server";

/**
 * What tools/list tells a host about the open tools (suggest_names, draft_world_outline) follows
 * the deployment: where anonymous calls reach them (mixed) they say `noauth`; under
 * MCP_AUTH_MODE=required every request needs a token, so they say `oauth2` with no scopes (any
 * token), at the top level and in `_meta`, as ChatGPT reads them (seed 002 securitySchemes). An
 * outside review found them saying `noauth` in required mode, where an anonymous call is 401.
 */
type Scheme = { type: string; scopes?: string[] };
type Listed = { name: string; securitySchemes?: Scheme[]; _meta?: { securitySchemes?: Scheme[] } };

let server: RunningNextServer;

beforeAll(async () => {
  server = await startOwnServer({ MCP_AUTH_MODE: "required" });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

async function listed(client: EraClient): Promise<Map<string, Listed>> {
  const r = await client.request("tools/list", {});
  const tools = (r.message?.result as { tools: Listed[] }).tools;
  return new Map(tools.map((t) => [t.name, t]));
}

const schemesOf = (tool: Listed | undefined) => [tool?.securitySchemes, tool?._meta?.securitySchemes];

describe("securitySchemes of the open tools", () => {
  it("under MCP_AUTH_MODE=required: oauth2 without scopes, and a call with any token works", async () => {
    const token = await tokenFor(server.url, newSubject("required"), []);
    const client = await eraClient(`${server.url}/api/mcp`, "2026-07-28", token);
    const tools = await listed(client);
    for (const name of ["suggest_names", "draft_world_outline"]) expect(schemesOf(tools.get(name)), name).toEqual([[{ type: "oauth2", scopes: [] }], [{ type: "oauth2", scopes: [] }]]);
    expect(schemesOf(tools.get("list_worlds"))).toEqual([[{ type: "oauth2", scopes: ["worlds:read"] }], [{ type: "oauth2", scopes: ["worlds:read"] }]]);
    const named = await callTool(client, "suggest_names", { style: "elvish", count: 2 });
    expect(named.isError).toBeFalsy();
    const anonymous = await eraClient(`${server.url}/api/mcp`, "2026-07-28");
    expect((await anonymous.request("tools/call", { name: "suggest_names", arguments: { style: "elvish" } })).status).toBe(401);
  });

  it("where anonymous callers are served (mixed): noauth", async () => {
    const client = await eraClient(`${inject("statefulUrl")}/api/mcp`, "2026-07-28");
    const tools = await listed(client);
    for (const name of ["suggest_names", "draft_world_outline"]) expect(schemesOf(tools.get(name)), name).toEqual([[{ type: "noauth" }], [{ type: "noauth" }]]);
  });
});
