import { FileTooLargeError, type Json, type ToolResult } from "../bridge/host";
import { firstText, h, record, records, text } from "../ui/dom";
import { mountWidget, type ViewContext } from "../ui/mount";
import { Activity, succeeded } from "../ui/activity";
import { failureView } from "../ui/failure";

/**
 * The user's worlds (list_worlds), a page at a time: "Show more" calls list_worlds with the
 * same filters and nextCursor; "Open" calls get_world and shows that world; "Import" takes a world
 * file (WorldCrafter's Markdown or JSON export) to import_world — uploaded through ChatGPT's file
 * API, or read here and passed inline where the host has none. Loaded pages, imported worlds and
 * the open world are widget state, so a re-render shows the same list.
 */

/** A row as the list shows it: ChatGPT shows widget state to the model, so it keeps no more (no summary). */
interface WorldRow extends Json {
  id: string;
  name: string;
  theme: string;
}

interface ListState extends Json {
  more?: WorldRow[];
  nextCursor?: string | null;
  /**
   * The world opened from the list, by id. Not its get_world result: the whole world (a
   * description of up to 2,000 characters, dates, counts) went into the state the model sees
   * (outside probe, 2026-11-29), as the character card's relation had.
   */
  openId?: string;
  /** Worlds imported from this list, shown first. */
  imported?: WorldRow[];
}

const QUERY_META = "worldcrafter/query";
const activity = new Activity();
/** get_world's worlds opened in this frame, by id. */
const openedWorlds = new Map<string, Json>();
/** The opened world being read again, in a frame that restored the state but not the world. */
let reading: string | undefined;

const rowsOf = (value: unknown): WorldRow[] => records(value).map((w) => ({ id: text(w, "id"), name: text(w, "name"), theme: text(w, "theme") }));

function view({ host, rerender, t }: ViewContext): Node {
  const result: ToolResult | undefined = host.toolResult();
  const failed = failureView(result, t.toolFailed);
  if (failed) return failed;
  if (!result?.structuredContent) return h("div", { class: "empty", attrs: { role: "status" } }, result ? firstText(result.content) || t.noWorldsToShow : t.loadingWorlds);
  const state = host.widgetState<ListState>() ?? {};
  const worlds = [...(state.imported ?? []), ...rowsOf(result.structuredContent.worlds), ...(state.more ?? [])];
  const cursor = state.nextCursor === undefined ? text(result.structuredContent, "nextCursor") : (state.nextCursor ?? "");
  const query = record(result._meta?.[QUERY_META]) ?? {};
  const save = (patch: Partial<ListState>) => host.setWidgetState({ ...(host.widgetState<ListState>() ?? {}), ...patch });

  const showMore = () =>
    activity.run(rerender, t.loading, async () => {
      const args: Json = { cursor };
      for (const key of ["theme", "nameContains", "limit"]) if (query[key] !== undefined && query[key] !== null) args[key] = query[key];
      const r = succeeded(await host.callTool("list_worlds", args), t.toolFailed);
      save({ more: [...(host.widgetState<ListState>()?.more ?? []), ...rowsOf(r.structuredContent?.worlds)], nextCursor: text(r.structuredContent, "nextCursor") || null });
      return "";
    });
  const load = async (worldId: string) => {
    const r = succeeded(await host.callTool("get_world", { worldId }), t.toolFailed);
    openedWorlds.set(worldId, record(r.structuredContent?.world) ?? {});
    return "";
  };
  const open = (worldId: string) =>
    activity.run(rerender, t.loading, async () => {
      await load(worldId);
      save({ openId: worldId });
      return "";
    });
  const openId = typeof state.openId === "string" && state.openId ? state.openId : undefined;
  const opened = openId ? openedWorlds.get(openId) : undefined;
  if (openId && !opened && reading !== openId) {
    // A new frame with the state kept (a re-render): the opened world is read again, once; if that
    // fails the list shows without it, with the error below.
    reading = openId;
    // After this render: the activity re-renders as it starts.
    queueMicrotask(
      () =>
        void activity.run(rerender, t.loading, async () => {
          try {
            return await load(openId);
          } catch (error) {
            save({ openId: undefined });
            throw error;
          }
        }),
    );
  }

  const importFile = (file: File) =>
    activity.run(rerender, t.importing(file.name), async () => {
      let args: Json;
      try {
        args = await host.fileArgument(file);
      } catch (error) {
        throw error instanceof FileTooLargeError ? new Error(t.tooLarge) : error;
      }
      const r = succeeded(await host.callTool("import_world", args), t.toolFailed);
      const w = record(r.structuredContent?.world);
      const row = { id: text(w, "id"), name: text(w, "name"), theme: text(w, "theme") };
      if (row.id) save({ imported: [row, ...(host.widgetState<ListState>()?.imported ?? [])] });
      return t.imported(row.name || file.name);
    });
  // A visually plain button that opens the file picker; the input itself is hidden but labelled.
  const picker = h("input", {
    class: "visually-hidden",
    attrs: { id: "import-file", type: "file", accept: ".md,.markdown,.json,text/markdown,application/json", "aria-label": t.importFile, tabindex: -1 },
    on: {
      change: (e) => {
        const input = e.target as HTMLInputElement;
        const file = input.files?.[0];
        input.value = "";
        if (file) void importFile(file);
      },
    },
  });
  const importControl = h("div", { class: "actions" }, picker, h("button", { attrs: { type: "button", disabled: activity.busy }, on: { click: () => picker.click() } }, t.importWorld));

  return h(
    "section",
    { class: "card", attrs: { "aria-labelledby": "worlds-title" } },
    h("div", { class: "toolbar" }, h("h1", { attrs: { id: "worlds-title" } }, t.yourWorlds), importControl),
    worlds.length
      ? h(
          "ul",
          { class: "rows", attrs: { "data-testid": "worlds" } },
          ...worlds.map((w) =>
            h(
              "li",
              {},
              h("span", {}, h("span", { class: "row-title" }, w.name), h("span", { class: "muted" }, ` · ${w.theme}`)),
              h("button", { attrs: { type: "button", disabled: activity.busy, "aria-label": t.openName(w.name) }, on: { click: () => void open(w.id) } }, t.open),
            ),
          ),
        )
      : h("p", { class: "muted" }, t.noWorlds),
    cursor ? h("div", { class: "actions" }, h("button", { attrs: { type: "button", disabled: activity.busy }, on: { click: () => void showMore() } }, t.showMore)) : null,
    opened
      ? h(
          "article",
          { attrs: { "aria-labelledby": "open-world", "data-testid": "open-world" } },
          h("h2", { attrs: { id: "open-world" } }, text(opened, "name")),
          h("p", { class: "muted" }, text(opened, "theme")),
          text(opened, "description") ? h("p", { class: "prose" }, text(opened, "description")) : null,
          h("div", { class: "actions" }, h("button", { attrs: { type: "button" }, on: { click: () => save({ openId: undefined }) } }, t.close)),
        )
      : null,
    activity.line(),
  );
}

void mountWidget("world-list", view);
