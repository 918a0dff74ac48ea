/**
 * A production server publishes the tools' JSON Schemas made when it was built
 * (lib/worlds/tools/generated-schemas.json, written by every `next build`), not converted at its cold
 * start (issue 22; bench/PROFILING.md, round 28). What it publishes must be exactly what the core
 * makes of today's zod schemas: read here off the running production server and off the file.
 */
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { publishedSchemasOf } from "../../lib/mcp";
import { worldcrafterServer } from "../../lib/worlds/server-definition";
import { worldcrafterDefinition } from "../../lib/worlds/endpoint";
import { connectClient } from "../support/sdk-client";
import { PHASE_PRODUCTION_BUILD, PHASE_PRODUCTION_SERVER } from "next/constants";
import nextConfig from "../../next.config";

const GENERATED = new URL("../../lib/worlds/tools/generated-schemas.json", import.meta.url);
const live = () => publishedSchemasOf(worldcrafterServer.contents.tools ?? []);

describe("the tools' published schemas, made at build time", () => {
  it("the generated file holds what the core converts from every tool's zod schemas today", () => {
    const generated = JSON.parse(readFileSync(GENERATED, "utf8")) as unknown;
    expect(generated).toEqual(live());
    expect(Object.keys(live()).length).toBe((worldcrafterServer.contents.tools ?? []).length);
  });

  it("next build writes them before compiling, however it is started (next.config.ts)", () => {
    const flag = "WORLDCRAFTER_TOOL_SCHEMAS_WRITTEN";
    const before = process.env[flag];
    try {
      delete process.env[flag];
      nextConfig(PHASE_PRODUCTION_SERVER);
      expect(process.env[flag]).toBeUndefined();
      nextConfig(PHASE_PRODUCTION_BUILD);
      expect(process.env[flag]).toBe("1");
      expect(JSON.parse(readFileSync(GENERATED, "utf8"))).toEqual(live());
    } finally {
      if (before === undefined) delete process.env[flag];
      else process.env[flag] = before;
    }
  });

  it("a production definition carries them; dev and the tests convert live", () => {
    const production = worldcrafterDefinition({ NODE_ENV: "production" });
    expect(production.toolSchemas).toEqual(live());
    expect(production.contents).toBe(worldcrafterServer.contents);
    expect(worldcrafterDefinition({ NODE_ENV: "development" }).toolSchemas).toBeUndefined();
    expect(worldcrafterDefinition({ NODE_ENV: undefined }).toolSchemas).toBeUndefined();
  });

  it("the production server (next start) publishes exactly those, input and output", async () => {
    const { client } = await connectClient(`${inject("statefulUrl")}/api/mcp`);
    const { tools } = await client.listTools();
    const expected = live();
    expect(tools.map((t: Tool) => t.name).sort()).toEqual(Object.keys(expected).sort());
    for (const tool of tools) {
      const schemas = expected[tool.name];
      expect(tool.inputSchema, `${tool.name} inputSchema`).toEqual(schemas?.inputSchema);
      expect(tool.outputSchema, `${tool.name} outputSchema`).toEqual(schemas?.outputSchema);
    }
  });
});
