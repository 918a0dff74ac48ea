/**
 * What a widget is and how a tool uses one: plain data a tool definition carries. Kept apart
 * from widgets.ts (which turns them into resources and host metadata) so definitions.ts can name
 * them without importing what builds on definitions.
 */

/** Who sees a tool: the model, the widget (app), or both (seed 003 §visibility values). */
export type ToolVisibility = "model" | "app" | "both";

/** Origins a widget may reach; each list empty when it uses nothing external. */
export interface WidgetCsp {
  /** fetch/XHR/WebSocket targets. */
  connectDomains?: readonly string[];
  /** Images, scripts, styles, fonts. */
  resourceDomains?: readonly string[];
  /** ChatGPT only: openExternal targets that skip the confirmation. */
  redirectDomains?: readonly string[];
  /** Nested iframe sources, in both hosts (discouraged: ChatGPT reviews such apps more strictly). */
  frameDomains?: readonly string[];
}

export interface WidgetDefinition {
  /** `ui://widget/<name>-<hash>.html`: lower-case letters, digits and dashes. */
  name: string;
  title?: string;
  /** Model-visible summary of what the widget shows (`openai/widgetDescription`). */
  description: string;
  /** The whole self-contained document. */
  html: string;
  csp?: WidgetCsp;
  prefersBorder?: boolean;
  /** A dedicated origin for the widget (`_meta.ui.domain`, `openai/widgetDomain`). */
  domain?: string;
}

/** How a tool presents itself in a widget host. */
export interface ToolUi {
  /** The widget that renders the tool's results. */
  widget?: WidgetDefinition;
  /** Default: both. */
  visibility?: ToolVisibility;
  /** Status lines while the tool runs and after (at most 64 characters each). */
  invoking?: string;
  invoked?: string;
}
