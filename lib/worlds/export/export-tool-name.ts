/**
 * The export tool's name, which is also the budget every whole-world export spends: export_world
 * itself, a resources/read of world://{id}/export.{md,json}, and a download link's GET all build the
 * same document, so none of them may be the way around the others' limit (outside audit).
 */
export const EXPORT_TOOL_NAME = "export_world";
