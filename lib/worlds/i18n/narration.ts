import type { HandlerContext, LocalePolicy } from "../../mcp";

/**
 * The short sentences WorldCrafter's tools narrate (the `content` text a model reads aloud),
 * in every locale the app supports. Data (names, ids, structuredContent keys) is never
 * translated; only these sentences are. Negotiated per request from `_meta["openai/locale"]`.
 */
export const WORLD_LOCALES: LocalePolicy = { supported: ["en", "fr", "es"], fallback: "en" };

type Locale = "en" | "fr" | "es";

export interface Narration {
  worldCreated(name: string, theme: string, id: string): string;
  worlds(count: number, more: boolean): string;
  worldRead(name: string, theme: string, characters: number, locations: number): string;
  updated(fields: string[], name: string): string;
  nothingToUpdate(fields: string[]): string;
  deleteNeedsConfirmation(name: string): string;
  confirmDelete(name: string, characters: number, locations: number): string;
  kept(name: string, reason: "declined" | "cancelled" | "not_confirmed"): string;
  deleted(name: string): string;
  characterCreated(name: string, role: string, id: string): string;
  characterRead(name: string, role: string): string;
  characters(count: number, more: boolean): string;
  locationCreated(name: string, kind: string, id: string): string;
  locations(count: number, more: boolean): string;
  exported(name: string, characters: number, locations: number): string;
  imported(name: string, characters: number, locations: number, id: string): string;
  importRefused(problems: string): string;
  /** suggest_names: `style` and `kind` are the tool's ids (data), the names as forged. */
  namesSuggested(style: string, kind: string, names: string[]): string;
}

const en: Narration = {
  worldCreated: (name, theme, id) => `Created world "${name}" (${theme}), id ${id}.`,
  worlds: (n, more) => (n === 0 ? "No worlds found." : `${n} world${n === 1 ? "" : "s"}${more ? "; more with nextCursor" : ""}.`),
  worldRead: (name, theme, c, l) => `"${name}" (${theme}): ${c} character${c === 1 ? "" : "s"}, ${l} location${l === 1 ? "" : "s"}.`,
  updated: (fields, name) => `Updated ${fields.join(", ")} of "${name}".`,
  nothingToUpdate: (fields) => `Nothing to update: give at least one of ${fields.join(", ")}.`,
  deleteNeedsConfirmation: (name) => `Not deleted: ask the user to confirm, then call delete_world again with confirmName set to the world's exact name, "${name}".`,
  confirmDelete: (name, c, l) => `Delete the world "${name}" with its ${c} characters and ${l} locations? This cannot be undone.`,
  kept: (name, reason) => `Kept "${name}": the user ${reason === "not_confirmed" ? "did not confirm" : reason}.`,
  deleted: (name) => `Deleted "${name}" and everything in it.`,
  characterCreated: (name, role, id) => `Created ${role ? `${role} ` : ""}"${name}", id ${id}.`,
  characterRead: (name, role) => `"${name}"${role ? `, ${role}` : ""}.`,
  characters: (n, more) => (n === 0 ? "No characters found." : `${n} character${n === 1 ? "" : "s"}${more ? "; more with nextCursor" : ""}.`),
  locationCreated: (name, kind, id) => `Created ${kind ? `${kind} ` : "location "}"${name}", id ${id}.`,
  locations: (n, more) => (n === 0 ? "No locations found." : `${n} location${n === 1 ? "" : "s"}${more ? "; more with nextCursor" : ""}.`),
  exported: (name, c, l) => `Exported "${name}" with ${c} characters and ${l} locations as Markdown and JSON.`,
  imported: (name, c, l, id) => `Imported "${name}" as a new world with ${c} characters and ${l} locations, id ${id}.`,
  importRefused: (problems) => `Nothing imported: ${problems}`,
  namesSuggested: (style, kind, names) => `${names.length} ${style} ${kind} name${names.length === 1 ? "" : "s"}: ${names.join(", ")}`,
};

const fr: Narration = {
  worldCreated: (name, theme, id) => `Monde « ${name} » (${theme}) créé, id ${id}.`,
  worlds: (n, more) => (n === 0 ? "Aucun monde trouvé." : `${n} monde${n === 1 ? "" : "s"}${more ? " ; la suite avec nextCursor" : ""}.`),
  worldRead: (name, theme, c, l) => `« ${name} » (${theme}) : ${c} personnage${c > 1 ? "s" : ""}, ${l} lieu${l > 1 ? "x" : ""}.`,
  updated: (fields, name) => `« ${name} » mis à jour : ${fields.join(", ")}.`,
  nothingToUpdate: (fields) => `Rien à modifier : donnez au moins un de ces champs : ${fields.join(", ")}.`,
  deleteNeedsConfirmation: (name) => `Non supprimé : demandez confirmation à l'utilisateur, puis rappelez delete_world avec confirmName égal au nom exact du monde, « ${name} ».`,
  confirmDelete: (name, c, l) => `Supprimer le monde « ${name} » avec ses ${c} personnages et ses ${l} lieux ? C'est irréversible.`,
  kept: (name, reason) =>
    `« ${name} » est conservé : ${reason === "declined" ? "l'utilisateur a refusé" : reason === "cancelled" ? "l'utilisateur a annulé" : "la suppression n'a pas été confirmée"}.`,
  deleted: (name) => `« ${name} » et tout son contenu ont été supprimés.`,
  characterCreated: (name, role, id) => `Personnage « ${name} »${role ? ` (${role})` : ""} créé, id ${id}.`,
  characterRead: (name, role) => `« ${name} »${role ? `, ${role}` : ""}.`,
  characters: (n, more) => (n === 0 ? "Aucun personnage trouvé." : `${n} personnage${n === 1 ? "" : "s"}${more ? " ; la suite avec nextCursor" : ""}.`),
  locationCreated: (name, kind, id) => `Lieu « ${name} »${kind ? ` (${kind})` : ""} créé, id ${id}.`,
  locations: (n, more) => (n === 0 ? "Aucun lieu trouvé." : `${n} lieu${n === 1 ? "" : "x"}${more ? " ; la suite avec nextCursor" : ""}.`),
  exported: (name, c, l) => `« ${name} » exporté en Markdown et JSON, avec ${c} personnages et ${l} lieux.`,
  imported: (name, c, l, id) => `« ${name} » importé comme nouveau monde, avec ${c} personnages et ${l} lieux, id ${id}.`,
  importRefused: (problems) => `Rien n'a été importé : ${problems}`,
  namesSuggested: (style, kind, names) => `${names.length} nom${names.length > 1 ? "s" : ""} (${style}, ${kind}) : ${names.join(", ")}`,
};

const es: Narration = {
  worldCreated: (name, theme, id) => `Mundo «${name}» (${theme}) creado, id ${id}.`,
  worlds: (n, more) => (n === 0 ? "No se encontraron mundos." : `${n} mundo${n === 1 ? "" : "s"}${more ? "; hay más con nextCursor" : ""}.`),
  worldRead: (name, theme, c, l) => `«${name}» (${theme}): ${c} personaje${c === 1 ? "" : "s"}, ${l} lugar${l === 1 ? "" : "es"}.`,
  updated: (fields, name) => `«${name}» actualizado: ${fields.join(", ")}.`,
  nothingToUpdate: (fields) => `Nada que actualizar: indica al menos uno de ${fields.join(", ")}.`,
  deleteNeedsConfirmation: (name) => `No se eliminó: pide confirmación al usuario y vuelve a llamar a delete_world con confirmName igual al nombre exacto del mundo, «${name}».`,
  confirmDelete: (name, c, l) => `¿Eliminar el mundo «${name}» con sus ${c} personajes y ${l} lugares? No se puede deshacer.`,
  kept: (name, reason) =>
    `Se conservó «${name}»: ${reason === "declined" ? "el usuario lo rechazó" : reason === "cancelled" ? "el usuario canceló" : "no se confirmó"}.`,
  deleted: (name) => `Se eliminó «${name}» con todo su contenido.`,
  characterCreated: (name, role, id) => `Personaje «${name}»${role ? ` (${role})` : ""} creado, id ${id}.`,
  characterRead: (name, role) => `«${name}»${role ? `, ${role}` : ""}.`,
  characters: (n, more) => (n === 0 ? "No se encontraron personajes." : `${n} personaje${n === 1 ? "" : "s"}${more ? "; hay más con nextCursor" : ""}.`),
  locationCreated: (name, kind, id) => `Lugar «${name}»${kind ? ` (${kind})` : ""} creado, id ${id}.`,
  locations: (n, more) => (n === 0 ? "No se encontraron lugares." : `${n} lugar${n === 1 ? "" : "es"}${more ? "; hay más con nextCursor" : ""}.`),
  exported: (name, c, l) => `«${name}» exportado en Markdown y JSON, con ${c} personajes y ${l} lugares.`,
  imported: (name, c, l, id) => `«${name}» importado como un mundo nuevo, con ${c} personajes y ${l} lugares, id ${id}.`,
  importRefused: (problems) => `No se importó nada: ${problems}`,
  namesSuggested: (style, kind, names) => `${names.length} nombre${names.length === 1 ? "" : "s"} (${style}, ${kind}): ${names.join(", ")}`,
};

const CATALOG: Record<Locale, Narration> = { en, fr, es };

/** The narration for the caller's negotiated locale. */
export function narrate(ctx: Pick<HandlerContext, "locale">): Narration {
  return CATALOG[ctx.locale as Locale] ?? en;
}
