import type { Json, WidgetHost } from "../bridge/host";
import { h, record, text } from "../ui/dom";
import type { Activity } from "../ui/activity";
import { succeeded } from "../ui/activity";
import type { Strings } from "../ui/i18n";
import { onEnter } from "../ui/keys";
import { FIELD_LIMITS } from "../../lib/worlds/field-limits";

/**
 * Editing one character (update_character): a form shown in a host modal (ChatGPT renders the
 * widget again with view.mode "modal") or, elsewhere, in a dialog inside the frame. The character
 * is read once with get_character; what the user types survives the widget's full re-renders.
 * Closing the editor keeps its entry: saving re-renders the widget (the edit is widget state) while
 * the editor is still open, and a missing entry would read the character again. Opening it afresh
 * forgets the entry (forgetEdit).
 */

export interface Draft {
  name: string;
  role: string;
  traits: string;
  backstory: string;
}

interface EditorProps {
  host: WidgetHost;
  t: Strings;
  characterId: string;
  activity: Activity;
  rerender: () => void;
  /** Called after a save or a cancel: closes the modal or the dialog. */
  done: () => void;
  /** The character as saved (before `done`). */
  saved: (character: { id: string; name: string; role: string }) => void;
}

/** What the user edits, and the character as loaded: only the fields that differ are sent. */
interface Editing {
  draft: Draft;
  loaded: Draft;
}

const drafts = new Map<string, Editing | "loading" | Error>();

/** One trait per line: a trait may hold commas ("loyal, to a fault"), so a line is the only safe separator. */
export function traitsOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** update_character's arguments: the fields the user changed (compared as the server would store them). */
export function changedFields(loaded: Draft, draft: Draft): Json {
  const changes: Json = {};
  if (draft.name.trim() !== loaded.name.trim()) changes.name = draft.name.trim();
  if (draft.role.trim() !== loaded.role.trim()) changes.role = draft.role.trim();
  const traits = traitsOf(draft.traits);
  if (JSON.stringify(traits) !== JSON.stringify(traitsOf(loaded.traits))) changes.traits = traits;
  if (draft.backstory !== loaded.backstory) changes.backstory = draft.backstory;
  return changes;
}

function load(props: EditorProps): void {
  const { host, t, characterId, rerender } = props;
  drafts.set(characterId, "loading");
  host.callTool("get_character", { characterId }).then(
    (r) => {
      const ok = succeeded(r, t.toolFailed);
      // The widget-only record holds the whole backstory; the model's copy may be cut.
      const c = record(ok._meta?.["worldcrafter/character"]) ?? record(ok.structuredContent?.character);
      const traits = Array.isArray(c?.traits) ? c.traits.filter((x): x is string => typeof x === "string") : [];
      const loaded = { name: text(c, "name"), role: text(c, "role"), traits: traits.join("\n"), backstory: text(c, "backstory") };
      drafts.set(characterId, { draft: { ...loaded }, loaded });
      rerender();
    },
    (error: unknown) => {
      drafts.set(characterId, error instanceof Error ? error : new Error(String(error)));
      rerender();
    },
  );
}

/** Called when the user opens the editor: it reads the character again rather than showing an earlier opening's draft. */
export function forgetEdit(characterId: string): void {
  drafts.delete(characterId);
}

export function characterEditor(props: EditorProps): HTMLElement {
  const { host, t, characterId, activity, rerender, done, saved } = props;
  const editing = drafts.get(characterId);
  if (editing === undefined) load(props);
  if (editing === undefined || editing === "loading") return h("div", { class: "empty", attrs: { role: "status" } }, t.loadingCharacter);
  if (editing instanceof Error) return h("div", { class: "empty status error", attrs: { role: "alert" } }, editing.message);
  const { draft, loaded } = editing;

  const field = (key: keyof Draft, label: string, maxlength: number, multiline = false) => {
    const id = `edit-${key}`;
    const on = { input: (e: Event) => (draft[key] = (e.target as HTMLInputElement | HTMLTextAreaElement).value), ...(multiline ? {} : { keydown: onEnter(submit) }) };
    return [
      h("label", { attrs: { for: id } }, label),
      multiline ? h("textarea", { attrs: { id, maxlength }, on }, draft[key]) : h("input", { attrs: { id, maxlength, value: draft[key] }, on }),
    ];
  };
  const submit = () => {
    if (activity.busy) return;
    const changes = changedFields(loaded, draft);
    if (Object.keys(changes).length === 0) {
      // Nothing to save: the server would refuse an empty update.
      done();
      return;
    }
    void activity.run(rerender, t.saving, async () => {
      const r = succeeded(await host.callTool("update_character", { characterId, ...changes }), t.toolFailed);
      const c = record(r.structuredContent?.character);
      saved({ id: characterId, name: text(c, "name", draft.name), role: text(c, "role", draft.role) });
      done();
      return t.saved(text(c, "name", draft.name));
    });
  };
  // Not a <form>: Save is a button, so it works where the host's sandbox lacks allow-forms.
  return h(
    "div",
    { class: "card editor", attrs: { role: "form", "aria-labelledby": "edit-title", "data-testid": "character-editor" } },
    h("h2", { attrs: { id: "edit-title" } }, t.editName(draft.name)),
    // The tool's own limits (lib/worlds/field-limits.ts); the traits box holds up to 12 lines of 60.
    ...field("name", t.characterName, FIELD_LIMITS.name),
    ...field("role", t.roleOptional, FIELD_LIMITS.shortText),
    ...field("traits", t.traitsHint, FIELD_LIMITS.traits * (FIELD_LIMITS.trait + 1), true),
    ...field("backstory", t.backstory, FIELD_LIMITS.longText, true),
    h(
      "div",
      { class: "actions" },
      h("button", { class: "primary", attrs: { type: "button", disabled: activity.busy }, on: { click: submit } }, t.save),
      h(
        "button",
        {
          attrs: { type: "button" },
          on: {
            click: done,
          },
        },
        t.cancel,
      ),
    ),
    activity.line(),
  );
}

/** The editor in a dialog inside the frame, for hosts without a modal. */
export function editorDialog(props: EditorProps): HTMLElement {
  return h("div", { class: "dialog-backdrop" }, h("div", { class: "dialog", attrs: { role: "dialog", "aria-modal": "true", "aria-labelledby": "edit-title" } }, characterEditor(props)));
}
