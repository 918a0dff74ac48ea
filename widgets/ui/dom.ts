/**
 * Building DOM without HTML strings: every string child becomes a text node, so user text (a
 * world named `<img src=x onerror=…>`) is shown as the characters it is and never parsed.
 */

type Child = Node | string | number | null | undefined | false;

interface Props {
  class?: string;
  /** Attributes set with setAttribute (values are text, never markup). */
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [type, handler] of Object.entries(props.on ?? {})) element.addEventListener(type, handler as EventListener);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** A string field of a record, or the fallback. */
export function text(record: Record<string, unknown> | undefined, field: string, fallback = ""): string {
  const value = record?.[field];
  return typeof value === "string" ? value : fallback;
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)) : [];
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The first text block of a tool result: the server's narration, or its error message. */
export function firstText(content: unknown[] | undefined): string {
  for (const block of content ?? []) {
    const b = record(block);
    if (b?.type === "text" && typeof b.text === "string") return b.text;
  }
  return "";
}
