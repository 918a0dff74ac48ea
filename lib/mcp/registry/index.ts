export * from "./definitions";
export * from "./widgets";
export { Registry, type RegistryContents, type ListKind, type CompiledTool, type ResourceMatch } from "./registry";
