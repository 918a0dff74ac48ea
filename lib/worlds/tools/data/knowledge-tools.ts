import { z } from "zod";
import { defineTool, type CallToolResult } from "../../../mcp";
import { ownerOf } from "../../owner";
import { searchOwned } from "../../data/search";
import { documentId, fetchDocument, titleOf, urlOf } from "../../knowledge/documents";
import { READ_ONLY, excerpt, fitRecord, jsonBytes, STRUCTURED_BUDGET } from "./shared";
import { FetchOutput, SearchOutput } from "./outputs";
import { READS } from "../../scopes";
import { singleLine } from "../../single-line";
import { neutraliseLinks } from "../../export/safe-links";

/**
 * `search` and `fetch` with the standard company-knowledge signatures (seed 002 §company knowledge):
 * search → `{results: [{id, title, url, snippet}]}`, fetch → `{id, title, text, url, metadata}`.
 * Connectors that consume this pair parse the single text block as JSON, so that block carries the
 * same JSON as structuredContent instead of a narration.
 */

const SEARCH_LIMIT = 10;

function knowledgeResult<S extends Record<string, unknown>>(structuredContent: S): CallToolResult & { structuredContent: S } {
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
}

export const search = defineTool({
  name: "search",
  title: "Search Worlds",
  description:
    "Search your worlds, characters and locations by words in their names, themes, roles, kinds, descriptions and backstories. Returns ids to pass to fetch.",
  input: z.object({ query: singleLine().trim().min(1).max(200).describe("Words to look for") }),
  output: SearchOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Searching worlds…", invoked: "Search done" },
  handler: async ({ query }, ctx) => {
    const hits = await searchOwned(ownerOf(ctx), query, SEARCH_LIMIT);
    const results = hits.map((h) => ({ id: documentId(h.kind, h.id), title: titleOf(h.name, h.label), url: urlOf(h.kind, h.id), snippet: neutraliseLinks(excerpt(h.text, 200)) }));
    // Ten results with 200-character snippets stay far below the structured budget.
    while (jsonBytes({ results }) > STRUCTURED_BUDGET) results.pop();
    return knowledgeResult({ results });
  },
});

export const fetchTool = defineTool({
  name: "fetch",
  title: "Fetch World Document",
  description: "Read the full document for an id returned by search (a world, character or location), with its canonical url for citation.",
  input: z.object({ id: singleLine().trim().min(3).max(80).describe('An id from search results, e.g. "world:<id>"') }),
  output: FetchOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Reading document…", invoked: "Document read" },
  handler: async ({ id }, ctx) => {
    const doc = await fetchDocument(ownerOf(ctx), id);
    return knowledgeResult(fitRecord({ ...doc }, ["text"]));
  },
});

export const knowledgeTools = [search, fetchTool];
