import type { Json, ToolResult, WidgetHost } from "../bridge/host";
import { firstText, h, record, records, text } from "../ui/dom";
import { mountWidget, type ViewContext } from "../ui/mount";
import { Activity, succeeded } from "../ui/activity";
import { failureView } from "../ui/failure";
import { formatDate, type Strings } from "../ui/i18n";
import { relationsGraph, type GraphNode } from "../ui/graph";
import { characterEditor, editorDialog, forgetEdit } from "./character-editor";
import { onEnter } from "../ui/keys";
import { FIELD_LIMITS } from "../../lib/worlds/field-limits";
import { addedBeyond, countWithAdded, type AddedRow, type CharacterRow } from "./added";

/**
 * The world card: one world (get_world, create_world, update_world) with its counts and first
 * characters. Add a character (create_character through the host), export (export_world: the
 * Markdown file opens through the host), delete (delete_world, then the card closes), and Expand:
 * fullscreen (or picture-in-picture) with every character, location and the relations between
 * characters as a graph. Editing a character opens in a host modal where there is one (ChatGPT),
 * else in a dialog inside the frame. What the user adds and types is widget state, so it is still
 * there when the host renders the card again.
 */

interface CardState extends Json {
  /** The world this state belongs to: state of any other world is not this card's. */
  worldId?: string;
  draftName?: string;
  draftRole?: string;
  added?: AddedRow[];
  /** Characters edited from this card (in its dialog or the host's modal), by id. */
  edited?: Record<string, CharacterRow>;
  /** The character being edited in the in-frame dialog (hosts without a modal). */
  editing?: string;
  /** The world's name as read again when delete_world refused the one shown (renamed since). */
  renamed?: string;
}

/** What the expanded view loads through the host once per world. */
interface Expanded {
  worldId: string;
  characters: CharacterRow[];
  locations: { id: string; name: string; kind: string }[];
  relations: Map<string, string[]>;
}

const WORLD_META = "worldcrafter/world";
/** The expanded view fetches relations for this many characters at most (one get_character each). */
const GRAPH_LIMIT = 24;
/**
 * list_characters and list_locations answer a page at a time, and a page's structuredContent stays
 * under 10 KB, so 50 long characters take several pages: the card follows nextCursor, up to this
 * many pages per list (a bound on the tool calls one Expand makes; beyond it the list is cut).
 */
const MAX_PAGES = 10;
const activity = new Activity();
/** The expanded view's data: loaded, loading, or the error that stopped the load (until the user retries). */
let expanded: Expanded | "loading" | Error | undefined;
let confirmingDelete = false;
/**
 * The world `expanded` and `confirmingDelete` belong to. A host may hand the same widget a result
 * for another world (MCP Apps: another tool-result; ChatGPT: a new toolOutput): the old world's
 * load, or its "loading" mark, kept the expanded view at "Loading…" for good, and an open delete
 * confirmation moved over to the new world (outside probe, 2026-11-29).
 */
let stateFor: string | undefined;

function rowsOf(value: unknown): CharacterRow[] {
  return records(value).map((c) => ({ id: text(c, "id"), name: text(c, "name"), role: text(c, "role") }));
}

function countOf(counts: Record<string, unknown> | undefined, field: string): number {
  const value = counts?.[field];
  return typeof value === "number" ? value : 0;
}

/** Every page of a world's list (up to MAX_PAGES), following nextCursor. */
async function listAll(host: WidgetHost, tool: string, field: string, worldId: string, t: Strings): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor = "";
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = succeeded(await host.callTool(tool, { worldId, limit: 50, ...(cursor ? { cursor } : {}) }), t.toolFailed);
    rows.push(...records(r.structuredContent?.[field]));
    cursor = text(r.structuredContent, "nextCursor");
    if (!cursor) break;
  }
  return rows;
}

/** Characters, locations and each character's relations, through the host's tool calls. */
async function loadExpanded(host: WidgetHost, worldId: string, t: Strings): Promise<Expanded> {
  const [chars, places] = await Promise.all([listAll(host, "list_characters", "characters", worldId, t), listAll(host, "list_locations", "locations", worldId, t)]);
  const characters = rowsOf(chars);
  const locations = places.map((l) => ({ id: text(l, "id"), name: text(l, "name"), kind: text(l, "kind") }));
  const relations = new Map<string, string[]>();
  await Promise.all(
    characters.slice(0, GRAPH_LIMIT).map(async (c) => {
      const r = await host.callTool("get_character", { characterId: c.id });
      const full = record(r._meta?.["worldcrafter/character"]);
      relations.set(c.id, records(full?.relations).map((o) => text(o, "id")));
    }),
  );
  return { worldId, characters, locations, relations };
}

function view({ host, rerender, t }: ViewContext): Node {
  const result: ToolResult | undefined = host.toolResult();
  const world = record(result?.structuredContent?.world);
  const worldId = text(world, "id");
  // Only this world's state: a host (or a stale key) handing over another world's shows none of it.
  const current = (): CardState => {
    const s = host.widgetState<CardState>();
    return s && s.worldId === worldId ? s : {};
  };
  const state = current();
  const save = (patch: Partial<CardState>) => host.setWidgetState({ ...current(), ...patch, worldId });
  const context = host.context();

  // A host modal (ChatGPT requestModal) renders this widget again just to edit one character.
  const viewMode = host.view();
  const modalId = viewMode.mode === "modal" ? text(viewMode.params, "editCharacterId") : "";
  // The edit is widget state, which the host shares between the modal and the card: the card shows it.
  const saved = (c: CharacterRow) => save({ edited: { ...(current().edited ?? {}), [c.id]: c } });
  if (modalId) return characterEditor({ host, t, characterId: modalId, activity, rerender, saved, done: () => void activity.attempt(rerender, () => host.requestClose()) });

  const failed = failureView(result, t.toolFailed);
  if (failed) return failed;
  if (!world) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || t.noWorld : t.loadingWorld);
  const full = record(result?._meta?.[WORLD_META]);
  const listed = rowsOf(full?.characters);
  // Deduplicated by id, so a character is listed and counted once.
  const added = addedBeyond(listed, state.added ?? []);
  const withEdits = (rows: CharacterRow[]) => rows.map((c) => state.edited?.[c.id] ?? c);
  const shown = withEdits([...listed, ...added]);
  const counts = record(full?.counts) ?? record(world.counts);
  const worldName = state.renamed || text(world, "name");
  const big = context.displayMode === "fullscreen";

  if (stateFor !== worldId) {
    stateFor = worldId;
    expanded = undefined;
    confirmingDelete = false;
  }
  if (big && expanded === undefined) {
    expanded = "loading";
    // A load that ends after the card moved on to another world is dropped.
    const stillCurrent = () => stateFor === worldId;
    loadExpanded(host, worldId, t).then(
      (loaded) => {
        if (!stillCurrent()) return;
        expanded = loaded;
        rerender();
      },
      (error: unknown) => {
        if (!stillCurrent()) return;
        // Kept, not cleared: an undefined `expanded` starts the load again on the very next render,
        // a loop of tool calls that spends the user's whole rate limit. Retrying is the user's choice.
        expanded = error instanceof Error ? error : new Error(String(error));
        rerender();
      },
    );
  }

  const addCharacter = () => {
    if (activity.busy) return;
    const draft = current();
    const name = (draft.draftName ?? "").trim();
    if (!name) {
      activity.fail(t.nameFirst);
      return rerender();
    }
    const role = (draft.draftRole ?? "").trim();
    void activity.run(rerender, t.adding(name), async () => {
      const r = succeeded(await host.callTool("create_character", { worldId, name, ...(role ? { role } : {}) }), t.toolFailed);
      const c = record(r.structuredContent?.character);
      const row = { id: text(c, "id"), name: text(c, "name", name), role: text(c, "role", role) };
      save({ added: [...(current().added ?? []), { ...row, over: countOf(counts, "characters") }], draftName: "", draftRole: "" });
      expanded = undefined;
      return t.joined(row.name, worldName);
    });
  };

  const exportWorld = () =>
    activity.run(rerender, t.exporting, async () => {
      const r = succeeded(await host.callTool("export_world", { worldId }), t.toolFailed);
      // The first file is the Markdown export (the server's file reference, seed 002 §files).
      const file = records(r.structuredContent?.files)[0];
      const url = text(file, "download_url");
      if (!url) throw new Error(t.exportNoFile);
      await host.openExternal(url);
      return t.exportOpened(text(file, "file_name", url));
    });

  const deleteWorld = () =>
    activity.run(rerender, t.deleting, async () => {
      // The user confirmed here; the exact name is the server's guard for hosts without elicitation.
      const r = await host.callTool("delete_world", { worldId, confirmName: worldName });
      if (r.isError && text(record(r.structuredContent?.error), "code") === "confirmation_required") {
        // The world was renamed since this card was drawn: its current name, for the user to confirm again.
        const fresh = record(succeeded(await host.callTool("get_world", { worldId }), t.toolFailed).structuredContent?.world);
        const name = text(fresh, "name", worldName);
        save({ renamed: name });
        throw new Error(t.renamedConfirmAgain(name));
      }
      succeeded(r, t.toolFailed);
      confirmingDelete = false;
      if (r.structuredContent?.deleted !== true) return firstText(r.content);
      // The card has nothing left to show: it closes (seed 003 §close widget; ChatGPT also reads
      // the result's `openai/closeWidget`, MCP Apps hosts need the app to ask).
      await host.requestClose();
      return t.deleted(worldName);
    });

  const edit = (c: CharacterRow) => {
    forgetEdit(c.id);
    if (host.canModal) void activity.attempt(rerender, () => host.requestModal(t.editName(c.name), { editCharacterId: c.id }));
    else save({ editing: c.id });
  };

  // Fullscreen uses the room; pip is a small floating window, so it keeps the compact card.
  const modes = context.availableDisplayModes;
  const mode = context.displayMode;
  const modeButton = (target: "inline" | "fullscreen" | "pip", label: string) =>
    h("button", { attrs: { type: "button" }, on: { click: () => void activity.attempt(rerender, () => host.requestDisplayMode(target)) } }, label);
  const toolbar = h(
    "div",
    { class: "actions" },
    mode !== "fullscreen" && modes.includes("fullscreen") ? modeButton("fullscreen", t.expand) : null,
    mode === "inline" && modes.includes("pip") ? modeButton("pip", t.pip) : null,
    mode !== "inline" ? modeButton("inline", t.collapse) : null,
  );

  const updated = text(world, "updatedAt");
  const header = [
    h("div", { class: "toolbar" }, h("h1", { attrs: { id: "world-name" } }, worldName), toolbar),
    h("ul", { class: "badges", attrs: { "aria-label": t.themeAndTone } }, h("li", { class: "badge" }, text(world, "theme")), text(world, "tone") ? h("li", { class: "badge" }, text(world, "tone")) : null),
    text(world, "description") ? h("p", { class: "prose" }, text(world, "description")) : null,
    h(
      "p",
      { class: "muted", attrs: { "data-testid": "counts" } },
      t.counts(countWithAdded(countOf(counts, "characters"), added), countOf(counts, "locations")),
      updated ? h("span", { attrs: { "data-testid": "updated" } }, ` · ${t.updatedAt(formatDate(updated, context.locale, context.timeZone))}`) : null,
    ),
  ];

  const characterList = (rows: CharacterRow[], editable: boolean) =>
    rows.length
      ? h(
          "ul",
          { class: "rows", attrs: { "data-testid": "characters" } },
          ...rows.map((c) =>
            h(
              "li",
              {},
              h("span", {}, h("span", { class: "row-title" }, c.name), c.role ? h("span", { class: "muted" }, ` · ${c.role}`) : null),
              editable ? h("button", { attrs: { type: "button", disabled: activity.busy, "aria-label": t.editName(c.name) }, on: { click: () => edit(c) } }, t.edit) : null,
            ),
          ),
        )
      : h("p", { class: "muted" }, t.noCharacters);

  // A group with a button, not a <form>: submission needs allow-forms, which a host may not grant.
  const submitOnEnter = onEnter(addCharacter);
  const addForm = h(
    "div",
    { class: "inline", attrs: { role: "group", "aria-label": t.addCharacterForm } },
    h("label", { class: "visually-hidden", attrs: { for: "new-name" } }, t.characterName),
    h("input", { attrs: { id: "new-name", name: "name", placeholder: t.characterName, maxlength: FIELD_LIMITS.name, value: state.draftName ?? "" }, on: { input: (e) => save({ draftName: (e.target as HTMLInputElement).value }), keydown: submitOnEnter } }),
    h("label", { class: "visually-hidden", attrs: { for: "new-role" } }, t.roleOptional),
    h("input", { attrs: { id: "new-role", name: "role", placeholder: t.roleOptional, maxlength: FIELD_LIMITS.shortText, value: state.draftRole ?? "" }, on: { input: (e) => save({ draftRole: (e.target as HTMLInputElement).value }), keydown: submitOnEnter } }),
    h("button", { class: "primary", attrs: { type: "button", disabled: activity.busy }, on: { click: addCharacter } }, t.addCharacter),
  );

  const actions = h(
    "div",
    { class: "actions" },
    h("button", { attrs: { type: "button", disabled: activity.busy }, on: { click: () => void exportWorld() } }, t.exportWorld),
    h("button", { attrs: { type: "button" }, on: { click: () => void activity.attempt(rerender, () => host.sendFollowUp(t.askAboutPrompt(worldName))) } }, t.askAbout),
    h(
      "button",
      {
        class: "danger",
        attrs: { type: "button", disabled: activity.busy, "aria-expanded": confirmingDelete },
        on: {
          click: () => {
            confirmingDelete = !confirmingDelete;
            rerender();
          },
        },
      },
      t.deleteWorld,
    ),
  );
  const confirm = confirmingDelete
    ? h(
        "div",
        { class: "confirm", attrs: { role: "alertdialog", "aria-labelledby": "confirm-delete" } },
        h("p", { attrs: { id: "confirm-delete" } }, t.confirmDelete(worldName)),
        h(
          "div",
          { class: "actions" },
          h("button", { class: "danger", attrs: { type: "button", disabled: activity.busy }, on: { click: () => void deleteWorld() } }, t.confirmDeleteButton),
          h(
            "button",
            {
              attrs: { type: "button" },
              on: {
                click: () => {
                  confirmingDelete = false;
                  rerender();
                },
              },
            },
            t.cancel,
          ),
        ),
      )
    : null;

  const dialog = state.editing ? editorDialog({ host, t, characterId: state.editing, activity, rerender, saved, done: () => {
          expanded = undefined;
          save({ editing: undefined });
        },
      }) : null;

  if (!big) {
    return h(
      "article",
      { class: "card", attrs: { "aria-labelledby": "world-name" } },
      ...header,
      h("h3", {}, t.characters),
      characterList(shown, true),
      addForm,
      actions,
      confirm,
      activity.line(),
      dialog,
    );
  }

  const loaded = typeof expanded === "object" && !(expanded instanceof Error) && expanded.worldId === worldId ? expanded : undefined;
  const loadFailed = expanded instanceof Error ? expanded : undefined;
  const pending = () => (loadFailed ? null : h("p", { class: "muted" }, t.loading));
  const nodes: GraphNode[] = (loaded ? withEdits(loaded.characters) : shown).slice(0, GRAPH_LIMIT).map((c) => ({ id: c.id, name: c.name }));
  return h(
    "article",
    { class: "card expanded", attrs: { "aria-labelledby": "world-name", "data-testid": "expanded" } },
    ...header,
    loadFailed
      ? h(
          "div",
          { class: "status error", attrs: { role: "alert", "data-testid": "expand-error" } },
          `${loadFailed.message} `,
          h(
            "button",
            {
              attrs: { type: "button" },
              on: {
                click: () => {
                  expanded = undefined;
                  rerender();
                },
              },
            },
            t.retry,
          ),
        )
      : null,
    h(
      "div",
      { class: "columns" },
      h("section", { attrs: { "aria-label": t.characters } }, h("h3", {}, t.characters), characterList(loaded ? withEdits(loaded.characters) : shown, true), addForm),
      h(
        "section",
        { attrs: { "aria-label": t.locations } },
        h("h3", {}, t.locations),
        loaded
          ? loaded.locations.length
            ? h("ul", { class: "rows", attrs: { "data-testid": "locations" } }, ...loaded.locations.map((l) => h("li", {}, h("span", { class: "row-title" }, l.name), l.kind ? h("span", { class: "muted" }, l.kind) : null)))
            : h("p", { class: "muted" }, t.noLocations)
          : pending(),
      ),
    ),
    h("h3", {}, t.relations),
    loaded ? relationsGraph(nodes, loaded.relations, t.relationsGraph) : pending(),
    actions,
    confirm,
    activity.line(),
    dialog,
  );
}

void mountWidget("world-card", view);
