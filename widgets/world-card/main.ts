import type { Json, ToolResult, WidgetHost } from "../bridge/host";
import { firstText, h, record, records, text } from "../ui/dom";
import { mountWidget } from "../ui/mount";
import { Activity, succeeded } from "../ui/activity";

/**
 * The world card: one world (get_world, create_world, update_world) with its counts and first
 * characters. Add a character (create_character through the host) and export (export_world).
 * What the user adds and types is kept in the widget state, so it is still there when the host
 * renders the card again.
 */

interface CharacterRow extends Json {
  id: string;
  name: string;
  role: string;
}

interface CardState extends Json {
  draftName?: string;
  draftRole?: string;
  added?: CharacterRow[];
}

const WORLD_META = "worldcrafter/world";
const activity = new Activity();

function rowsOf(value: unknown): CharacterRow[] {
  return records(value).map((c) => ({ id: text(c, "id"), name: text(c, "name"), role: text(c, "role") }));
}

function countOf(counts: Record<string, unknown> | undefined, field: string): number {
  const value = counts?.[field];
  return typeof value === "number" ? value : 0;
}

function view(host: WidgetHost, rerender: () => void): Node {
  const result: ToolResult | undefined = host.toolResult();
  const world = record(result?.structuredContent?.world);
  if (!world) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || "No world to show." : "Loading world…");
  const full = record(result?._meta?.[WORLD_META]);
  const state = host.widgetState<CardState>() ?? {};
  const added = state.added ?? [];
  const shown = [...rowsOf(full?.characters), ...added];
  const counts = record(full?.counts) ?? record(world.counts);
  const worldId = text(world, "id");
  const save = (patch: Partial<CardState>) => host.setWidgetState({ ...(host.widgetState<CardState>() ?? {}), ...patch });

  const addCharacter = (event: SubmitEvent) => {
    event.preventDefault();
    const draft = host.widgetState<CardState>() ?? {};
    const name = (draft.draftName ?? "").trim();
    if (!name) {
      activity.fail("Give the character a name first.");
      return rerender();
    }
    const role = (draft.draftRole ?? "").trim();
    void activity.run(rerender, `Adding ${name}…`, async () => {
      const r = succeeded(await host.callTool("create_character", { worldId, name, ...(role ? { role } : {}) }));
      const c = record(r.structuredContent?.character);
      const row = { id: text(c, "id"), name: text(c, "name", name), role: text(c, "role", role) };
      save({ added: [...(host.widgetState<CardState>()?.added ?? []), row], draftName: "", draftRole: "" });
      return `${row.name} joined ${text(world, "name")}.`;
    });
  };

  return h(
    "article",
    { class: "card", attrs: { "aria-labelledby": "world-name" } },
    h("h1", { attrs: { id: "world-name" } }, text(world, "name")),
    h("ul", { class: "badges", attrs: { "aria-label": "Theme and tone" } }, h("li", { class: "badge" }, text(world, "theme")), text(world, "tone") ? h("li", { class: "badge" }, text(world, "tone")) : null),
    text(world, "description") ? h("p", {}, text(world, "description")) : null,
    h("p", { class: "muted", attrs: { "data-testid": "counts" } }, `${countOf(counts, "characters") + added.length} characters · ${countOf(counts, "locations")} locations`),
    h("h3", {}, "Characters"),
    shown.length
      ? h("ul", { class: "rows", attrs: { "data-testid": "characters" } }, ...shown.map((c) => h("li", {}, h("span", { class: "row-title" }, c.name), c.role ? h("span", { class: "muted" }, c.role) : null)))
      : h("p", { class: "muted" }, "No characters yet."),
    h(
      "form",
      { class: "inline", attrs: { "aria-label": "Add a character" }, on: { submit: addCharacter } },
      h("label", { class: "visually-hidden", attrs: { for: "new-name" } }, "Character name"),
      h("input", { attrs: { id: "new-name", name: "name", placeholder: "Character name", maxlength: 120, value: state.draftName ?? "" }, on: { input: (e) => save({ draftName: (e.target as HTMLInputElement).value }) } }),
      h("label", { class: "visually-hidden", attrs: { for: "new-role" } }, "Role"),
      h("input", { attrs: { id: "new-role", name: "role", placeholder: "Role (optional)", maxlength: 120, value: state.draftRole ?? "" }, on: { input: (e) => save({ draftRole: (e.target as HTMLInputElement).value }) } }),
      h("button", { class: "primary", attrs: { type: "submit", disabled: activity.busy } }, "Add character"),
    ),
    h(
      "div",
      { class: "actions" },
      h("button", { attrs: { type: "button", disabled: activity.busy }, on: { click: () => void activity.run(rerender, "Exporting…", async () => firstText(succeeded(await host.callTool("export_world", { worldId })).content) || "Exported.") } }, "Export"),
      h("button", { attrs: { type: "button" }, on: { click: () => void host.sendFollowUp(`Tell me more about the world "${text(world, "name")}".`) } }, "Ask about it"),
    ),
    activity.line(),
  );
}

void mountWidget("world-card", view);
