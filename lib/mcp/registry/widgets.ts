import { createHash } from "node:crypto";
import type { Meta } from "../protocol/types";
import type { ResourceDefinition } from "./definitions";
import type { ToolUi, ToolVisibility, WidgetDefinition } from "./widget-definition";
import { isExactHttpsOrigin } from "../../config/https-origin";

/**
 * One definition of a widget and of how a tool uses it, published in both hosts' vocabularies
 * (seed 003 §tool/resource metadata mapping): MCP Apps (SEP-1865: `_meta.ui`, MIME
 * `text/html;profile=mcp-app`) and ChatGPT's Apps SDK (`openai/*` keys). ChatGPT reads the MCP
 * Apps form too and keeps `openai/outputTemplate` as an alias, so one resource serves both.
 */

/** The MCP Apps resource MIME type; ChatGPT accepts it as well. */
export const WIDGET_MIME_TYPE = "text/html;profile=mcp-app";

const WIDGET_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const STATUS_MAX = 64;
const uris = new WeakMap<WidgetDefinition, string>();
const resources = new WeakMap<WidgetDefinition, ResourceDefinition>();

/**
 * The widget's URI, with a hash of its HTML: hosts cache widget HTML at connect time, so a new
 * build must be a new URI or users keep seeing the old one.
 */
export function widgetUri(widget: WidgetDefinition): string {
  let uri = uris.get(widget);
  if (!uri) {
    if (!WIDGET_NAME.test(widget.name)) throw new Error(`Invalid widget name "${widget.name}": lower-case letters, digits and dashes`);
    const hash = createHash("sha256").update(widget.html).digest("hex").slice(0, 12);
    uri = `ui://widget/${widget.name}-${hash}.html`;
    uris.set(widget, uri);
  }
  return uri;
}

/** An origin, exactly: ChatGPT rejects wildcards, and a path or a typo would silently not match. */
function checkedDomains(field: string, domains: readonly string[] | undefined): string[] {
  return (domains ?? []).map((domain) => {
    if (domain.includes("*")) throw new Error(`Widget CSP ${field}: "${domain}" has a wildcard; list each origin`);
    if (!isExactHttpsOrigin(domain)) throw new Error(`Widget CSP ${field}: "${domain}" must be an https origin (no path)`);
    return new URL(domain).origin;
  });
}

/**
 * The widget's resource: its HTML under its hashed URI, with both hosts' metadata. Made once per
 * widget, however many tools render in it.
 */
export function widgetResource(widget: WidgetDefinition): ResourceDefinition {
  let resource = resources.get(widget);
  if (!resource) {
    resource = buildWidgetResource(widget);
    resources.set(widget, resource);
  }
  return resource;
}

function buildWidgetResource(widget: WidgetDefinition): ResourceDefinition {
  const csp = {
    connectDomains: checkedDomains("connectDomains", widget.csp?.connectDomains),
    resourceDomains: checkedDomains("resourceDomains", widget.csp?.resourceDomains),
    redirectDomains: checkedDomains("redirectDomains", widget.csp?.redirectDomains),
    frameDomains: checkedDomains("frameDomains", widget.csp?.frameDomains),
  };
  const domain = widget.domain ? checkedDomains("domain", [widget.domain])[0] : undefined;
  const prefersBorder = widget.prefersBorder ?? true;
  const meta: Meta = {
    // MCP Apps (2026-01-26 McpUiResourceCsp): frame domains too, when there are any (omitted =
    // no nested frames); redirect domains have no counterpart there (seed 003 §unified CSP).
    ui: {
      csp: { connectDomains: csp.connectDomains, resourceDomains: csp.resourceDomains, ...(csp.frameDomains.length ? { frameDomains: csp.frameDomains } : {}) },
      prefersBorder,
      ...(domain ? { domain } : {}),
    },
    "openai/widgetDescription": widget.description,
    "openai/widgetPrefersBorder": prefersBorder,
    "openai/widgetCSP": {
      connect_domains: csp.connectDomains,
      resource_domains: csp.resourceDomains,
      ...(csp.redirectDomains.length ? { redirect_domains: csp.redirectDomains } : {}),
      ...(csp.frameDomains.length ? { frame_domains: csp.frameDomains } : {}),
    },
    ...(domain ? { "openai/widgetDomain": domain } : {}),
  };
  const uri = widgetUri(widget);
  const size = Buffer.byteLength(widget.html, "utf8");
  return {
    uri,
    name: `${widget.name}-widget`,
    title: widget.title,
    description: widget.description,
    mimeType: WIDGET_MIME_TYPE,
    size,
    meta,
    // The URI changes with the content, so any cache may keep it for long (2026-07-28 caching).
    cache: { scope: "public", ttlMs: 24 * 3600 * 1000 },
    read: () => [{ uri, mimeType: WIDGET_MIME_TYPE, text: widget.html, _meta: meta }],
  };
}

const MCP_VISIBILITY: Record<ToolVisibility, string[]> = { model: ["model"], app: ["app"], both: ["model", "app"] };
const OPENAI_VISIBILITY: Record<ToolVisibility, { visibility: "public" | "private"; widgetAccessible: boolean }> = {
  model: { visibility: "public", widgetAccessible: false },
  app: { visibility: "private", widgetAccessible: true },
  both: { visibility: "public", widgetAccessible: true },
};

function status(kind: string, text: string | undefined): string | undefined {
  if (text !== undefined && (text.length === 0 || text.length > STATUS_MAX)) throw new Error(`toolInvocation ${kind} must be 1-${STATUS_MAX} characters: "${text}"`);
  return text;
}

/**
 * A tool descriptor's `_meta` for its `ui` (seed 003 §unified mapping): `ui.resourceUri` and
 * `openai/outputTemplate` (the same URI), visibility in both forms, and the status lines — flat
 * `openai/toolInvocation/*` keys (seed 002) and the nested object of seed 001.
 */
export function toolUiMeta(name: string, ui: ToolUi): Meta {
  const visibility = ui.visibility ?? "both";
  const openai = OPENAI_VISIBILITY[visibility];
  const invoking = status(`invoking of ${name}`, ui.invoking);
  const invoked = status(`invoked of ${name}`, ui.invoked);
  const resourceUri = ui.widget ? widgetUri(ui.widget) : undefined;
  return {
    ui: { ...(resourceUri ? { resourceUri } : {}), visibility: MCP_VISIBILITY[visibility] },
    ...(resourceUri ? { "openai/outputTemplate": resourceUri } : {}),
    "openai/widgetAccessible": openai.widgetAccessible,
    "openai/visibility": openai.visibility,
    ...(invoking ? { "openai/toolInvocation/invoking": invoking } : {}),
    ...(invoked ? { "openai/toolInvocation/invoked": invoked } : {}),
    ...(invoking || invoked ? { "openai/toolInvocation": { ...(invoking ? { invoking } : {}), ...(invoked ? { invoked } : {}) } } : {}),
  };
}
