import type { EndpointDefinition } from "../mcp";
import { fixturePrompts, fixtureResources, fixtureTemplates } from "./fixture-content";
import { fixtureTools } from "./fixture-tools";
import { fixtureTools2026 } from "./fixture-tools-2026";
import { fixtureToolsTasks } from "./fixture-tools-tasks";

/**
 * The conformance suite's fixture server: the same core and transport as /api/mcp with a
 * different registry. Mounted only when MCP_CONFORMANCE_FIXTURES is on.
 */
export const conformanceFixtureServer: EndpointDefinition = {
  info: { name: "worldcrafter-conformance-fixtures", version: "0.1.0" },
  instructions: "Fixture server for the MCP conformance suite and end-to-end tests.",
  contents: { tools: [...fixtureTools, ...fixtureTools2026, ...fixtureToolsTasks], resources: fixtureResources, resourceTemplates: fixtureTemplates, prompts: fixturePrompts },
};
