import type { Json, ToolResult, WidgetHost } from "../bridge/host";
import { firstText, h, record, records, text } from "../ui/dom";
import { mountWidget } from "../ui/mount";
import { Activity, succeeded } from "../ui/activity";

/**
 * The user's worlds (list_worlds), a page at a time: "Show more" calls list_worlds with the
 * same filters and nextCursor; "Open" calls get_world and shows that world. Loaded pages and the
 * open world are widget state, so a re-render shows the same list.
 */

interface WorldRow extends Json {
  id: string;
  name: string;
  theme: string;
  summary: string;
}

interface ListState extends Json {
  more?: WorldRow[];
  nextCursor?: string | null;
  open?: Json;
}

const QUERY_META = "worldcrafter/query";
const activity = new Activity();

const rowsOf = (value: unknown): WorldRow[] => records(value).map((w) => ({ id: text(w, "id"), name: text(w, "name"), theme: text(w, "theme"), summary: text(w, "summary") }));

function view(host: WidgetHost, rerender: () => void): Node {
  const result: ToolResult | undefined = host.toolResult();
  if (!result?.structuredContent) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || "No worlds to show." : "Loading worlds…");
  const state = host.widgetState<ListState>() ?? {};
  const worlds = [...rowsOf(result.structuredContent.worlds), ...(state.more ?? [])];
  const cursor = state.nextCursor === undefined ? text(result.structuredContent, "nextCursor") : (state.nextCursor ?? "");
  const query = record(result._meta?.[QUERY_META]) ?? {};
  const save = (patch: Partial<ListState>) => host.setWidgetState({ ...(host.widgetState<ListState>() ?? {}), ...patch });

  const showMore = () =>
    activity.run(rerender, "Loading…", async () => {
      const args: Json = { cursor };
      for (const key of ["theme", "nameContains", "limit"]) if (query[key] !== undefined && query[key] !== null) args[key] = query[key];
      const r = succeeded(await host.callTool("list_worlds", args));
      save({ more: [...(host.widgetState<ListState>()?.more ?? []), ...rowsOf(r.structuredContent?.worlds)], nextCursor: text(r.structuredContent, "nextCursor") || null });
      return "";
    });
  const open = (worldId: string) =>
    activity.run(rerender, "Loading…", async () => {
      const r = succeeded(await host.callTool("get_world", { worldId }));
      save({ open: record(r.structuredContent?.world) ?? {} });
      return "";
    });

  const opened = state.open;
  return h(
    "section",
    { class: "card", attrs: { "aria-labelledby": "worlds-title" } },
    h("h1", { attrs: { id: "worlds-title" } }, "Your worlds"),
    worlds.length
      ? h(
          "ul",
          { class: "rows", attrs: { "data-testid": "worlds" } },
          ...worlds.map((w) =>
            h(
              "li",
              {},
              h("span", {}, h("span", { class: "row-title" }, w.name), h("span", { class: "muted" }, ` · ${w.theme}`)),
              h("button", { attrs: { type: "button", disabled: activity.busy, "aria-label": `Open ${w.name}` }, on: { click: () => void open(w.id) } }, "Open"),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No worlds yet. Ask to create one."),
    cursor ? h("div", { class: "actions" }, h("button", { attrs: { type: "button", disabled: activity.busy }, on: { click: () => void showMore() } }, "Show more")) : null,
    opened
      ? h(
          "article",
          { attrs: { "aria-labelledby": "open-world", "data-testid": "open-world" } },
          h("h2", { attrs: { id: "open-world" } }, text(opened, "name")),
          h("p", { class: "muted" }, text(opened, "theme")),
          text(opened, "description") ? h("p", {}, text(opened, "description")) : null,
          h("div", { class: "actions" }, h("button", { attrs: { type: "button" }, on: { click: () => save({ open: undefined }) } }, "Close")),
        )
      : null,
    activity.line(),
  );
}

void mountWidget("world-list", view);
