export * from "./definitions";
export { Registry, type RegistryContents, type ListKind, type CompiledTool, type ResourceMatch } from "./registry";
