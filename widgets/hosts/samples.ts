import type { Json, ToolResult } from "../bridge/host";

/**
 * Sample tool calls for the preview page, shaped exactly like the server's results
 * (structuredContent for the model and widget, `_meta` for the widget alone), and a stand-in
 * server answering the widgets' own calls with more of the same.
 */

export interface Sample {
  widget: "world-card" | "character-card" | "world-list";
  toolName: string;
  toolInput: Json;
  toolResult: ToolResult;
}

const now = "2026-11-22T10:00:00.000Z";
const world = { id: "w_sample", name: "Emberfall", theme: "fantasy", tone: "hopeful", description: "A volcanic archipelago where glassblowers trade in bottled starlight.", createdAt: now, updatedAt: now, counts: { characters: 2, locations: 1 } };
const characters = [
  { id: "c_sample_1", name: "Ilsa Varn", role: "glassblower" },
  { id: "c_sample_2", name: "Tobiah Crane", role: "smuggler" },
];
const character = (c: { id: string; name: string; role: string }) => ({
  ...c,
  worldId: world.id,
  traits: c.role === "smuggler" ? ["charming", "restless"] : ["patient", "exacting", "curious"],
  backstory: `${c.name} grew up on the black sands of Emberfall.`,
  createdAt: now,
  updatedAt: now,
});
const withRelations = (c: { id: string; name: string; role: string }) => ({
  ...character(c),
  world: { id: world.id, name: world.name },
  relations: characters.filter((o) => o.id !== c.id),
});
const text = (t: string) => [{ type: "text", text: t }];

export const SAMPLES: Sample[] = [
  {
    widget: "world-card",
    toolName: "get_world",
    toolInput: { worldId: world.id },
    toolResult: { content: text("Emberfall (fantasy) has 2 characters and 1 location."), structuredContent: { world }, _meta: { "worldcrafter/world": { ...world, characters, locations: [{ id: "l_sample", name: "The Kiln Steps", kind: "city" }] } } },
  },
  {
    widget: "character-card",
    toolName: "get_character",
    toolInput: { characterId: "c_sample_1" },
    toolResult: { content: text("Ilsa Varn, glassblower."), structuredContent: { character: character(characters[0]!) }, _meta: { "worldcrafter/character": withRelations(characters[0]!) } },
  },
  {
    widget: "world-list",
    toolName: "list_worlds",
    toolInput: {},
    toolResult: {
      content: text("3 worlds, more available."),
      structuredContent: {
        worlds: [
          { id: world.id, name: world.name, theme: world.theme, tone: world.tone, summary: world.description, updatedAt: now },
          { id: "w_sample_2", name: "<img src=x onerror=alert(1)>", theme: "test of hostile names", tone: "", summary: "Shown as text.", updatedAt: now },
        ],
        nextCursor: "page-2",
      },
      _meta: { "worldcrafter/query": { limit: 2 } },
    },
  },
];

let created = 0;

/** Answers the widgets' tool calls in the preview, without a server or an account. */
export async function sampleServer(name: string, args: Json): Promise<ToolResult> {
  const str = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : "");
  switch (name) {
    case "create_character": {
      const c = { id: `c_new_${++created}`, name: str("name"), role: str("role") };
      return { content: text(`Created ${c.name}.`), structuredContent: { character: character(c) }, _meta: { "worldcrafter/character": withRelations(c) } };
    }
    case "get_character": {
      const c = characters.find((x) => x.id === str("characterId"));
      if (!c) return { content: text("Character not found"), isError: true };
      return { content: text(`${c.name}, ${c.role}.`), structuredContent: { character: character(c) }, _meta: { "worldcrafter/character": withRelations(c) } };
    }
    case "export_world": {
      // The server's shape (issue 24 item 1): file references, the Markdown first.
      const expires_at = new Date(Date.now() + 10 * 60_000).toISOString();
      const base = `${location.origin}/preview/sample-export`;
      return {
        content: text(`Exported ${world.name}: 2 characters, 1 location (Markdown and JSON).`),
        structuredContent: {
          worldId: world.id,
          files: [
            { download_url: `${base}/emberfall.md`, file_name: "emberfall.md", mime_type: "text/markdown", expires_at },
            { download_url: `${base}/emberfall.json`, file_name: "emberfall.json", mime_type: "application/json", expires_at },
          ],
        },
      };
    }
    case "import_world": {
      const name = typeof args.document === "string" ? (/^#\s+(.+)$/m.exec(args.document)?.[1] ?? "Imported world") : "Imported world";
      const w = { ...world, id: `w_imported_${++created}`, name };
      return { content: text(`Imported ${name}.`), structuredContent: { world: w } };
    }
    case "delete_world":
      return args.confirmName === world.name
        ? { content: text(`Deleted "${world.name}" and everything in it.`), structuredContent: { deleted: true, worldId: world.id, name: world.name }, _meta: { "openai/closeWidget": true } }
        : { content: text(`Not deleted: confirmName must be "${world.name}".`), isError: true };
    case "list_characters":
      return { content: text(`${characters.length} characters.`), structuredContent: { worldId: world.id, characters: characters.map((c) => ({ ...c, traits: character(c).traits, summary: "" })) } };
    case "list_locations":
      return { content: text("1 location."), structuredContent: { worldId: world.id, locations: [{ id: "l_sample", name: "The Kiln Steps", kind: "city", parentId: null, summary: "" }] } };
    case "update_character": {
      const c = characters.find((x) => x.id === str("characterId"));
      if (!c) return { content: text("Character not found"), isError: true };
      const updated = { ...c, name: str("name") || c.name, role: str("role") || c.role };
      return { content: text(`Updated ${updated.name}.`), structuredContent: { character: character(updated) }, _meta: { "worldcrafter/character": withRelations(updated) } };
    }
    case "list_worlds":
      return { content: text("1 more world."), structuredContent: { worlds: [{ id: "w_sample_3", name: "Saltmarch", theme: "nautical", tone: "grim", summary: "Drowned towns and lighthouse cults.", updatedAt: now }] } };
    case "get_world":
      return { content: text(world.name), structuredContent: { world: str("worldId") === world.id ? world : { ...world, id: str("worldId"), name: "Saltmarch", theme: "nautical", description: "Drowned towns and lighthouse cults." } } };
    default:
      return { content: text(`The preview has no sample answer for ${name}`), isError: true };
  }
}
