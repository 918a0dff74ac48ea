import { z } from "zod";
import { singleLine } from "../../single-line";
import { defineTool, ToolError } from "../../../mcp";
import { IMPORT_MAX_BYTES_DEFAULT, loadEnv } from "../../../config/env";
import { assertRoomForWorld } from "../../data/quotas";
import { ownerOf } from "../../owner";
import { narrate } from "../../i18n/narration";
import { getWorldCard, worldsByIdOrName } from "../../data/worlds";
import { importWorld } from "../../data/import";
import { worldCardRecord, worldWithCounts } from "../../records";
import { worldCardWidget } from "../../widgets";
import { fetchFile, FileFetchRefused } from "../../files/safe-fetch";
import { parseWorldFile, sniffFormat, WORLD_FILE_FORMATS } from "../../import/parse-world-file";
import { describeProblems, WorldFileProblems, type WorldDocument } from "../../import/world-document";
import { CREATES, WidgetKey, fitRecord, result } from "./shared";
import { WRITES } from "../../scopes";
import { activityLog } from "./activity-log";

/**
 * import_world: a world file — WorldCrafter's own Markdown or JSON export — made into a new world
 * of the caller's, in one transaction. ChatGPT hands an uploaded file over as a file parameter
 * (`_meta["openai/fileParams"]`, seed 002 "File Parameter Handling": `{ download_url, file_id }`);
 * other clients pass the text inline as `document`. A file that cannot be fetched or read is an
 * isError result naming what is wrong, and nothing is written.
 */

/** The tool's file parameters: ChatGPT fills these top-level fields with an uploaded file. */
export const IMPORT_FILE_PARAMS = ["file"] as const;

const FileParam = z
  .object({
    download_url: z.url({ protocol: /^https?$/ }).max(4096).describe("Where the host serves the uploaded file"),
    file_id: singleLine().min(1).max(256).optional().describe("The host's id of the uploaded file"),
    mime_type: singleLine().max(200).optional(),
    file_name: singleLine().max(260).optional(),
  })
  .describe("The world file, uploaded through the host (ChatGPT fills this in)");

const Input = z
  .object({
    file: FileParam.optional(),
    document: z
      .string()
      .min(1)
      .max(IMPORT_MAX_BYTES_DEFAULT)
      .optional()
      .describe("The world file's text, for clients that cannot upload files: a WorldCrafter Markdown or JSON export, at most 1 MiB of UTF-8 (and of the request body)"),
    format: z.enum(WORLD_FILE_FORMATS).optional().describe("The file's format; omitted, it is recognised from the file"),
  })
  .superRefine((args, ctx) => {
    if ((args.file === undefined) === (args.document === undefined)) {
      ctx.addIssue({ code: "custom", path: [], message: "Give exactly one of `file` (an uploaded file) or `document` (the file's text)" });
    }
  });

export const ImportOutput = z.object({
  world: z.object({
    id: z.string(),
    name: z.string(),
    theme: z.string(),
    tone: z.string(),
    description: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    counts: z.object({ characters: z.number().int().min(0), locations: z.number().int().min(0) }),
    truncated: z.array(z.string()).optional(),
  }),
  imported: z.object({ format: z.enum(WORLD_FILE_FORMATS), characters: z.number().int().min(0), locations: z.number().int().min(0) }),
});

const STEPS = 3;

export const importWorldTool = defineTool({
  name: "import_world",
  title: "Import World",
  description:
    "Import a world file — a WorldCrafter Markdown or JSON export (export_world) — as a NEW world of the user's, with its characters and locations. Pass the uploaded file as `file`, or the file's text as `document`. A file that cannot be read is refused with what is wrong, and nothing is created.",
  input: Input,
  output: ImportOutput,
  // Open world: `file.download_url` is fetched from whatever public https host it names
  // (files/safe-fetch.ts), so the tool reaches beyond this server's own data (outside review).
  annotations: { ...CREATES, openWorldHint: true },
  security: WRITES,
  meta: { "openai/fileParams": [...IMPORT_FILE_PARAMS] },
  ui: { widget: worldCardWidget, invoking: "Importing world…", invoked: "World imported" },
  handler: async ({ file, document, format }, ctx) => {
    const owner = ownerOf(ctx);
    const say = narrate(ctx);
    const env = loadEnv();
    const refuse = (problems: string) => new ToolError(say.importRefused(problems));
    // An account with no room for a world is told before its file is fetched (the data layer checks again).
    await assertRoomForWorld(owner);

    let text: string;
    let hints: { mediaType?: string; fileName?: string } = {};
    if (file) {
      try {
        const fetched = await fetchFile(file.download_url, { maxBytes: env.MCP_IMPORT_MAX_BYTES, timeoutMs: env.MCP_IMPORT_TIMEOUT_MS, allowLoopback: env.MCP_IMPORT_ALLOW_LOOPBACK }, ctx.signal);
        text = fetched.text;
        const mediaType = fetched.mediaType ?? file.mime_type?.split(";")[0]?.trim().toLowerCase();
        const fileName = file.file_name ?? fetched.fileName;
        hints = { ...(mediaType ? { mediaType } : {}), ...(fileName ? { fileName } : {}) };
      } catch (thrown) {
        if (thrown instanceof FileFetchRefused) throw refuse(thrown.message);
        throw thrown;
      }
    } else {
      text = document as string;
      const bytes = Buffer.byteLength(text, "utf8");
      if (bytes > env.MCP_IMPORT_MAX_BYTES) throw refuse(`the document is too large (${bytes} bytes; at most ${env.MCP_IMPORT_MAX_BYTES})`);
    }
    await ctx.progress(1, STEPS, "Read the file");

    const chosen = format ?? sniffFormat(text, hints);
    await activityLog.importRead(ctx, chosen, Buffer.byteLength(text, "utf8"));
    let doc: WorldDocument;
    try {
      doc = parseWorldFile(text, chosen);
    } catch (thrown) {
      if (thrown instanceof WorldFileProblems) throw refuse(`the ${chosen === "json" ? "JSON" : "Markdown"} file is not a valid WorldCrafter world: ${describeProblems(thrown.problems)}`);
      throw thrown;
    }
    await ctx.progress(2, STEPS, "Checked the world");

    const created = await importWorld(owner, doc, ctx.signal);
    const card = await getWorldCard(owner, created.id);
    const full = worldWithCounts(card);
    await ctx.progress(3, STEPS, "Created the world");
    await activityLog.imported(ctx, card, { characters: card._count.characters, locations: card._count.locations });
    // An export imported back copies its name: say so now, before a prompt by name finds two.
    const namesakes = (await worldsByIdOrName(owner, card.name)).filter((w) => w.id !== card.id).map((w) => w.id);
    if (namesakes.length > 0) await activityLog.importNameShared(ctx, card, namesakes);
    return result(
      say.imported(card.name, card._count.characters, card._count.locations, card.id),
      { world: fitRecord(full, ["description"]), imported: { format: chosen, characters: doc.characters.length, locations: doc.locations.length } },
      { [WidgetKey.World]: worldCardRecord(card) },
    );
  },
});
