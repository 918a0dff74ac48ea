import { z } from "zod";
import { defineTool, type ContentBlock } from "../../../mcp";
import { ownerOf } from "../../owner";
import { exportWorld } from "../../export/world-export";
import { EXPORT_TOOL_NAME } from "../../export/export-tool-name";
import { narrate } from "../../i18n/narration";
import { uriOf } from "../../records";
import { exportFileReferences, type FileReference } from "../../files/download-link";
import { EXPORT_FILE_FORMATS } from "../../files/download-token";
import { Id, READ_ONLY, result } from "./shared";
import { READS } from "../../scopes";
import { activityLog } from "./activity-log";

/**
 * Exports above this size are linked (resource_link to the export resources) rather than embedded,
 * so a huge world does not flood the model's context; resources/read serves the same documents.
 */
export const EMBED_LIMIT_BYTES = 256 * 1024;

/**
 * What export_world returns in structuredContent. `files` are real downloads: signed https links
 * served by the app (GET /api/files/<token>) that expire, in the Apps SDK's file-object shape, so
 * a widget opens `files[0].download_url` with the host's openExternal / openLink.
 */
export const ExportOutput = z.object({
  worldId: z.string(),
  name: z.string(),
  counts: z.object({ characters: z.number().int().min(0), locations: z.number().int().min(0) }),
  exports: z.array(
    z.object({ format: z.enum(["markdown", "json"]), uri: z.string(), mimeType: z.string(), bytes: z.number().int().min(0), embedded: z.boolean() }),
  ),
  files: z.array(
    z.object({
      download_url: z.url(),
      file_name: z.string(),
      mime_type: z.string(),
      expires_at: z.iso.datetime(),
      format: z.enum(EXPORT_FILE_FORMATS),
    }),
  ),
});

/** A download link as an MCP content block (server/tools §resource links): for clients without widgets. */
function linkBlock(file: FileReference, bytes: number | undefined): ContentBlock {
  return {
    type: "resource_link",
    uri: file.download_url,
    name: file.file_name,
    mimeType: file.mime_type,
    description: `Download (${bytes ?? "?"} bytes), valid until ${file.expires_at}`,
  };
}

export const exportWorldTool = defineTool({
  name: EXPORT_TOOL_NAME,
  title: "Export World",
  description:
    "Export a whole world — details, every character and every location — as a Markdown document and a JSON document, with a short-lived download link for each file (structuredContent.files). Long worlds report progress per step; cancelling stops it.",
  input: z.object({ worldId: Id.describe("The world's id") }),
  output: ExportOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Exporting world…", invoked: "World exported" },
  // A long world may outlive a request: clients that negotiated tasks get one (docs/tasks.md).
  execution: { taskSupport: "optional" },
  handler: async ({ worldId }, ctx) => {
    const owner = ownerOf(ctx);
    const exported = await exportWorld(owner, worldId, {
      signal: ctx.signal,
      onStep: ({ step, total, message }) => ctx.progress(step, total, message),
    });
    const { world, markdown, json } = exported;
    const documents = [
      { format: "markdown" as const, uri: uriOf.worldExport(world.id, "md"), mimeType: "text/markdown", text: markdown },
      { format: "json" as const, uri: uriOf.worldExport(world.id, "json"), mimeType: "application/json", text: json },
    ];
    const bytes = documents.map((d) => Buffer.byteLength(d.text, "utf8"));
    const embed = bytes.reduce((a, b) => a + b, 0) <= EMBED_LIMIT_BYTES;
    const blocks: ContentBlock[] = documents.map((d, i) =>
      embed
        ? { type: "resource", resource: { uri: d.uri, mimeType: d.mimeType, text: d.text } }
        : { type: "resource_link", uri: d.uri, name: `${world.name}.${d.format === "markdown" ? "md" : "json"}`, mimeType: d.mimeType, description: `${bytes[i]} bytes` },
    );
    const files = await exportFileReferences(owner, world);
    const bytesOf = { md: bytes[0], json: bytes[1] };
    await activityLog.exported(ctx, world, exported, { markdown: bytes[0] ?? 0, json: bytes[1] ?? 0 });
    const narrated = result(narrate(ctx).exported(world.name, exported.characters, exported.locations), {
      worldId: world.id,
      name: world.name,
      counts: { characters: exported.characters, locations: exported.locations },
      exports: documents.map((d, i) => ({ format: d.format, uri: d.uri, mimeType: d.mimeType, bytes: bytes[i] ?? 0, embedded: embed })),
      files,
    });
    return { ...narrated, content: [...narrated.content, ...blocks, ...files.map((f) => linkBlock(f, bytesOf[f.format]))] };
  },
});
