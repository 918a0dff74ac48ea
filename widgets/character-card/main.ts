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
  /**
   * The relation opened from this card, by id. Not its get_character result: ChatGPT shows widget
   * state to the model, and the result's `_meta` (backstory, relations) is the widget's alone
   * (outside probe, 2026-11-29: 2.8 KB of it went into the state).
   */
  openedId?: string;
}

const CHARACTER_META = "worldcrafter/character";
const activity = new Activity();
/** get_character's results for the relations opened in this frame, by id. */
const openedResults = new Map<string, ToolResult>();
/** The opened relation being read again, in a frame that restored the state but not the result. */
let reading: string | undefined;

function view({ host, rerender, t }: ViewContext): Node {
  const failed = failureView(host.toolResult(), t.toolFailed);
  if (failed) return failed;
  const state = host.widgetState<CardState>() ?? {};
  const openedId = typeof state.openedId === "string" && state.openedId ? state.openedId : undefined;
  const load = (characterId: string) => async () => {
    const r = succeeded(await host.callTool("get_character", { characterId }), t.toolFailed);
    openedResults.set(characterId, { ...(r.structuredContent ? { structuredContent: r.structuredContent } : {}), ...(r._meta ? { _meta: r._meta } : {}) });
    return "";
  };
  const opened = openedId ? openedResults.get(openedId) : undefined;
  if (openedId && !opened) {
    // A new frame with the state kept (a re-render): the opened relation is read again, once; if
    // that fails the card goes back to the character of the tool call, with the error below it.
    if (reading !== openedId) {
      reading = openedId;
      // After this render: the activity re-renders as it starts.
      queueMicrotask(
        () =>
          void activity.run(rerender, t.opening, async () => {
            try {
              return await load(openedId)();
            } catch (error) {
              host.setWidgetState({ ...state, openedId: undefined });
              throw error;
            }
          }),
      );
    }
    return h("div", { class: "empty", attrs: { role: "status" } }, t.loadingCharacter);
  }
  const result: ToolResult | undefined = opened ?? host.toolResult();
  const character = record(result?.structuredContent?.character);
  if (!character) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || t.noCharacter : t.loadingCharacter);
  const full = record(result?._meta?.[CHARACTER_META]) ?? character;
  const world = record(full.world);
  const relations = records(full.relations);
  const traits = Array.isArray(full.traits) ? full.traits.filter((t): t is string => typeof t === "string") : [];

  const open = (characterId: string) =>
    activity.run(rerender, t.opening, async () => {
      await load(characterId)();
      host.setWidgetState({ ...state, openedId: characterId });
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
      openedId ? h("button", { attrs: { type: "button" }, on: { click: () => host.setWidgetState({ ...state, openedId: undefined }) } }, t.back) : null,
      h("button", { attrs: { type: "button" }, on: { click: () => void activity.attempt(rerender, () => host.sendFollowUp(t.developPrompt(text(full, "name")))) } }, t.developBackstory),
    ),
    activity.line(),
  );
}

void mountWidget("character-card", view);
