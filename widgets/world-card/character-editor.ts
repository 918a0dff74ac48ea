import type { Json, WidgetHost } from "../bridge/host";
import { h, record, text } from "../ui/dom";
import type { Activity } from "../ui/activity";
import { succeeded } from "../ui/activity";
import type { Strings } from "../ui/i18n";
import { onEnter } from "../ui/keys";

/**
 * Editing one character (update_character): a form shown in a host modal (ChatGPT renders the
 * widget again with view.mode "modal") or, elsewhere, in a dialog inside the frame. The character
 * is read once with get_character; what the user types survives the widget's full re-renders.
 */

interface Draft {
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

const drafts = new Map<string, Draft | "loading" | Error>();

function load(props: EditorProps): void {
  const { host, t, characterId, rerender } = props;
  drafts.set(characterId, "loading");
  host.callTool("get_character", { characterId }).then(
    (r) => {
      const c = record(succeeded(r, t.toolFailed).structuredContent?.character);
      const traits = Array.isArray(c?.traits) ? c.traits.filter((x): x is string => typeof x === "string") : [];
      drafts.set(characterId, { name: text(c, "name"), role: text(c, "role"), traits: traits.join(", "), backstory: text(c, "backstory") });
      rerender();
    },
    (error: unknown) => {
      drafts.set(characterId, error instanceof Error ? error : new Error(String(error)));
      rerender();
    },
  );
}

export function characterEditor(props: EditorProps): HTMLElement {
  const { host, t, characterId, activity, rerender, done, saved } = props;
  const draft = drafts.get(characterId);
  if (draft === undefined) load(props);
  if (draft === undefined || draft === "loading") return h("div", { class: "empty", attrs: { role: "status" } }, t.loadingCharacter);
  if (draft instanceof Error) return h("div", { class: "empty status error", attrs: { role: "alert" } }, draft.message);

  const field = (key: keyof Draft, label: string, multiline = false) => {
    const id = `edit-${key}`;
    const on = { input: (e: Event) => (draft[key] = (e.target as HTMLInputElement | HTMLTextAreaElement).value), ...(multiline ? {} : { keydown: onEnter(submit) }) };
    return [
      h("label", { attrs: { for: id } }, label),
      multiline ? h("textarea", { attrs: { id, maxlength: 4000 }, on }, draft[key]) : h("input", { attrs: { id, maxlength: 120, value: draft[key] }, on }),
    ];
  };
  const submit = () => {
    if (activity.busy) return;
    void activity.run(rerender, t.saving, async () => {
      const traits = draft.traits
        .split(/[,、，]/)
        .map((x) => x.trim())
        .filter(Boolean);
      const args: Json = { characterId, name: draft.name.trim(), role: draft.role.trim(), traits, backstory: draft.backstory };
      const r = succeeded(await host.callTool("update_character", args), t.toolFailed);
      const c = record(r.structuredContent?.character);
      drafts.delete(characterId);
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
    ...field("name", t.characterName),
    ...field("role", t.roleOptional),
    ...field("traits", t.traitsHint),
    ...field("backstory", t.backstory, true),
    h(
      "div",
      { class: "actions" },
      h("button", { class: "primary", attrs: { type: "button", disabled: activity.busy }, on: { click: submit } }, t.save),
      h(
        "button",
        {
          attrs: { type: "button" },
          on: {
            click: () => {
              drafts.delete(characterId);
              done();
            },
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
