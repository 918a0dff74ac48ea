export * from "./definitions";
export * from "./widget-definition";
export * from "./widgets";
export { Registry, type RegistryContents, type RegistryOptions, type ListKind, type CompiledTool, type ResourceMatch } from "./registry";
export { publishedSchemasOf, type PublishedSchemas, type PublishedToolSchemas } from "./published-schemas";
