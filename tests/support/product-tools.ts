/** The product registry's tools, in the order tools/list must give them (sorted by name). */
export const PRODUCT_TOOLS = [
  "create_character",
  "create_location",
  "create_world",
  "delete_world",
  "draft_world_outline",
  "export_world",
  "fetch",
  "get_character",
  "get_world",
  "list_characters",
  "list_locations",
  "list_worlds",
  "search",
  "suggest_names",
  "update_character",
  "update_world",
];
