// examples/notes/notes.ts: what the endpoint serves (tools, a resource, a prompt) and the scopes they need.
import { z } from "zod";
import type { ScopeCatalog } from "@/lib/auth/scope-catalog";
import { ToolError, definePrompt, defineResource, defineTool, type HandlerContext, type RegistryContents } from "@/lib/mcp";

export const NotesScope = { Read: "notes:read", Write: "notes:write" } as const;

/** The one table of scopes: the metadata's scopes_supported, the challenges, the tools' security. */
export const NOTES_SCOPES: ScopeCatalog = [
  { name: NotesScope.Read, description: "Read your notes" },
  { name: NotesScope.Write, description: "Add and delete your notes", implies: [NotesScope.Read] },
];

const MAX_NOTES = 100;

/** Each caller's notes, by the token's subject. In memory to keep the example small: a real app keeps them in its database. */
const notesBySubject = new Map<string, { id: number; text: string }[]>();

function notesOf(ctx: HandlerContext): { id: number; text: string }[] {
  // `security` below lets no call without a token through; this is for the type.
  if (!ctx.auth) throw new ToolError("Sign in to keep notes.", "sign_in_required");
  let notes = notesBySubject.get(ctx.auth.subject);
  if (!notes) notesBySubject.set(ctx.auth.subject, (notes = []));
  return notes;
}

const Note = z.object({ id: z.number().int(), text: z.string() });

const addNote = defineTool({
  name: "add_note",
  title: "Add a note",
  description: "Keep a short note for later.",
  input: z.object({ text: z.string().min(1).max(500).describe("What to remember") }),
  output: z.object({ note: Note, count: z.number().int() }),
  security: [{ type: "oauth2", scopes: [NotesScope.Write] }],
  handler: ({ text }, ctx) => {
    const notes = notesOf(ctx);
    // A ToolError is an isError result the model reads: its message says what to do, its code what kind of failure.
    if (notes.length >= MAX_NOTES) throw new ToolError(`You already keep ${MAX_NOTES} notes: delete one first (delete_note).`, "quota_exceeded");
    const note = { id: (notes.at(-1)?.id ?? 0) + 1, text };
    notes.push(note);
    return { content: [{ type: "text", text: `Noted as #${note.id}.` }], structuredContent: { note, count: notes.length } };
  },
});

const listNotes = defineTool({
  name: "list_notes",
  title: "List notes",
  description: "List the notes kept so far, oldest first.",
  input: z.object({}),
  output: z.object({ notes: z.array(Note) }),
  annotations: { readOnlyHint: true },
  security: [{ type: "oauth2", scopes: [NotesScope.Read] }],
  handler: (_args, ctx) => {
    const notes = notesOf(ctx);
    const text = notes.length === 0 ? "No notes yet." : notes.map((n) => `#${n.id}: ${n.text}`).join("\n");
    return { content: [{ type: "text", text }], structuredContent: { notes } };
  },
});

const deleteNote = defineTool({
  name: "delete_note",
  title: "Delete a note",
  description: "Delete one note by its number.",
  input: z.object({ id: z.number().int().min(1).describe("The note's number, from list_notes") }),
  annotations: { destructiveHint: true, idempotentHint: true },
  security: [{ type: "oauth2", scopes: [NotesScope.Write] }],
  handler: ({ id }, ctx) => {
    const notes = notesOf(ctx);
    const at = notes.findIndex((n) => n.id === id);
    if (at < 0) throw new ToolError(`There is no note #${id}: list_notes shows the numbers.`, "not_found");
    notes.splice(at, 1);
    return { content: [{ type: "text", text: `Deleted note #${id}.` }] };
  },
});

const guide = defineResource({
  uri: "notes://guide",
  name: "guide",
  title: "How notes work",
  mimeType: "text/markdown",
  read: () => [{ uri: "notes://guide", mimeType: "text/markdown", text: `Up to ${MAX_NOTES} notes of at most 500 characters each; add_note, list_notes, delete_note.` }],
});

const summarize = definePrompt({
  name: "summarize_notes",
  title: "Summarize my notes",
  description: "Ask for a summary of the notes kept so far.",
  arguments: z.object({ style: z.string().max(50).optional().describe("How to write it: bullets, one paragraph…") }),
  get: ({ style }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Call list_notes, then summarize my notes${style ? ` as ${style}` : ""}.` } }],
  }),
});

export const notesContents: RegistryContents = { tools: [addNote, listNotes, deleteNote], resources: [guide], prompts: [summarize] };
