import type { Json, ToolResult } from "../bridge/host";
import { firstText, h, record, records, text } from "../ui/dom";
import { mountWidget, type ViewContext } from "../ui/mount";
import { Activity, succeeded } from "../ui/activity";
import { failureView } from "../ui/failure";

/**
 * The character card (get_character, create_character, update_character): role, traits,
 * backstory, and the character's relations — the world they live in and the others there. Opening
 * a relation calls get_character through the host; which character is open is widget state.
 */

interface CardState extends Json {
  /** A relation opened from this card: its get_character result. */
  opened?: { structuredContent?: Json; _meta?: Json };
}

const CHARACTER_META = "worldcrafter/character";
const activity = new Activity();

function view({ host, rerender, t }: ViewContext): Node {
  const failed = failureView(host.toolResult(), t.toolFailed);
  if (failed) return failed;
  const state = host.widgetState<CardState>() ?? {};
  const result: ToolResult | undefined = state.opened ?? host.toolResult();
  const character = record(result?.structuredContent?.character);
  if (!character) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || t.noCharacter : t.loadingCharacter);
  const full = record(result?._meta?.[CHARACTER_META]) ?? character;
  const world = record(full.world);
  const relations = records(full.relations);
  const traits = Array.isArray(full.traits) ? full.traits.filter((t): t is string => typeof t === "string") : [];

  const open = (characterId: string) =>
    activity.run(rerender, t.opening, async () => {
      const r = succeeded(await host.callTool("get_character", { characterId }), t.toolFailed);
      host.setWidgetState({ ...state, opened: { ...(r.structuredContent ? { structuredContent: r.structuredContent } : {}), ...(r._meta ? { _meta: r._meta } : {}) } });
      return "";
    });

  return h(
    "article",
    { class: "card", attrs: { "aria-labelledby": "character-name" } },
    h("h1", { attrs: { id: "character-name" } }, text(full, "name")),
    h("p", { class: "muted" }, [text(full, "role"), world ? t.of(text(world, "name")) : ""].filter(Boolean).join(" ")),
    traits.length ? h("ul", { class: "badges", attrs: { "aria-label": t.traits } }, ...traits.map((t) => h("li", { class: "badge" }, t))) : null,
    text(full, "backstory") ? h("p", { class: "prose" }, text(full, "backstory")) : h("p", { class: "muted" }, t.noBackstory),
    h("h3", {}, t.relations),
    relations.length
      ? h(
          "ul",
          { class: "rows", attrs: { "data-testid": "relations" } },
          ...relations.map((r) =>
            h(
              "li",
              {},
              h("span", {}, h("span", { class: "row-title" }, text(r, "name")), text(r, "role") ? h("span", { class: "muted" }, ` · ${text(r, "role")}`) : null),
              h("button", { attrs: { type: "button", disabled: activity.busy, "aria-label": t.openName(text(r, "name")) }, on: { click: () => void open(text(r, "id")) } }, t.open),
            ),
          ),
        )
      : h("p", { class: "muted" }, t.noOthers),
    h(
      "div",
      { class: "actions" },
      state.opened ? h("button", { attrs: { type: "button" }, on: { click: () => host.setWidgetState({ ...state, opened: undefined }) } }, t.back) : null,
      h("button", { attrs: { type: "button" }, on: { click: () => void activity.attempt(rerender, () => host.sendFollowUp(t.developPrompt(text(full, "name")))) } }, t.developBackstory),
    ),
    activity.line(),
  );
}

void mountWidget("character-card", view);
