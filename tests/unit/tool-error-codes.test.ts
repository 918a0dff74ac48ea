import { describe, expect, it } from "vitest";
import { TOOL_ERROR_CODES } from "../../lib/mcp";

describe("the core's tool error codes", () => {
  // They describe failures for any app built on the core: WorldCrafter's nouns are its own.
  it("are described in words that name no WorldCrafter record", () => {
    for (const description of Object.values(TOOL_ERROR_CODES)) expect(description).not.toMatch(/world|character|location/i);
  });
});
