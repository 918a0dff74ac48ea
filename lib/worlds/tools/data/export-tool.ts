import { z } from "zod";
import { defineTool, type ContentBlock } from "../../../mcp";
import { ownerOf } from "../../owner";
import { exportWorld } from "../../export/world-export";
import { narrate } from "../../i18n/narration";
import { uriOf } from "../../records";
import { Id, READ_ONLY, result } from "./shared";
import { READS } from "../../scopes";

/**
 * Exports above this size are linked (resource_link to the export resources) rather than embedded,
 * so a huge world does not flood the model's context; resources/read serves the same documents.
 */
export const EMBED_LIMIT_BYTES = 256 * 1024;

export const exportWorldTool = defineTool({
  name: "export_world",
  title: "Export World",
  description:
    "Export a whole world — details, every character and every location — as a Markdown document and a JSON document. Long worlds report progress per step; cancelling stops it.",
  input: z.object({ worldId: Id.describe("The world's id") }),
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Exporting world…", invoked: "World exported" },
  // A long world may outlive a request: clients that negotiated tasks get one (docs/tasks.md).
  execution: { taskSupport: "optional" },
  handler: async ({ worldId }, ctx) => {
    const exported = await exportWorld(ownerOf(ctx), worldId, {
      signal: ctx.signal,
      onStep: ({ step, total, message }) => ctx.progress(step, total, message),
    });
    const { world, markdown, json } = exported;
    const documents = [
      { format: "markdown", uri: uriOf.worldExport(world.id, "md"), mimeType: "text/markdown", text: markdown },
      { format: "json", uri: uriOf.worldExport(world.id, "json"), mimeType: "application/json", text: json },
    ];
    const bytes = documents.map((d) => Buffer.byteLength(d.text, "utf8"));
    const embed = bytes.reduce((a, b) => a + b, 0) <= EMBED_LIMIT_BYTES;
    const blocks: ContentBlock[] = documents.map((d, i) =>
      embed
        ? { type: "resource", resource: { uri: d.uri, mimeType: d.mimeType, text: d.text } }
        : { type: "resource_link", uri: d.uri, name: `${world.name}.${d.format === "markdown" ? "md" : "json"}`, mimeType: d.mimeType, description: `${bytes[i]} bytes` },
    );
    const narrated = result(narrate(ctx).exported(world.name, exported.characters, exported.locations), {
      worldId: world.id,
      name: world.name,
      counts: { characters: exported.characters, locations: exported.locations },
      exports: documents.map((d, i) => ({ format: d.format, uri: d.uri, mimeType: d.mimeType, bytes: bytes[i], embedded: embed })),
    });
    return { ...narrated, content: [...narrated.content, ...blocks] };
  },
});
