/**
 * Widget metadata from one definition per tool (seeds 002, 003): the mapping itself (pure), then
 * what the real server publishes — tool descriptors with `_meta.ui` and the `openai/*` aliases,
 * widget resources under hashed `ui://widget/…` URIs with `text/html;profile=mcp-app` and both
 * CSP forms, and self-contained HTML.
 */
import { describe, expect, inject, it } from "vitest";
import { toolUiMeta, widgetResource, widgetUri, WIDGET_MIME_TYPE, type WidgetDefinition } from "../../lib/mcp";
import { openSession, post } from "../support/mcp-http";

type Json = Record<string, unknown>;
const widget = (html = "<!doctype html><p>hi</p>", extra: Partial<WidgetDefinition> = {}): WidgetDefinition => ({ name: "demo-card", description: "A demo", html, ...extra });

describe("one tool definition, both hosts' metadata", () => {
  it("maps visibility model / app / both to ui.visibility, openai/visibility and openai/widgetAccessible", () => {
    expect(toolUiMeta("t", { visibility: "model" })).toMatchObject({ ui: { visibility: ["model"] }, "openai/visibility": "public", "openai/widgetAccessible": false });
    expect(toolUiMeta("t", { visibility: "app" })).toMatchObject({ ui: { visibility: ["app"] }, "openai/visibility": "private", "openai/widgetAccessible": true });
    expect(toolUiMeta("t", {})).toMatchObject({ ui: { visibility: ["model", "app"] }, "openai/visibility": "public", "openai/widgetAccessible": true });
  });

  it("points ui.resourceUri and openai/outputTemplate at the same hashed URI, which changes with the HTML", () => {
    const w = widget();
    const meta = toolUiMeta("t", { widget: w, invoking: "Working…", invoked: "Done" });
    expect((meta.ui as Json).resourceUri).toBe(widgetUri(w));
    expect(meta["openai/outputTemplate"]).toBe(widgetUri(w));
    expect(widgetUri(w)).toMatch(/^ui:\/\/widget\/demo-card-[0-9a-f]{12}\.html$/);
    expect(widgetUri(widget("<!doctype html><p>changed</p>"))).not.toBe(widgetUri(w));
    expect(meta).toMatchObject({ "openai/toolInvocation/invoking": "Working…", "openai/toolInvocation/invoked": "Done" });
  });

  it("refuses status lines over 64 characters, wildcard or non-https CSP domains, and bad widget names", () => {
    expect(() => toolUiMeta("t", { invoking: "x".repeat(65) })).toThrow(/64/);
    expect(() => widgetResource(widget(undefined, { csp: { connectDomains: ["https://*.example.com"] } }))).toThrow(/wildcard/);
    expect(() => widgetResource(widget(undefined, { csp: { resourceDomains: ["http://cdn.example.com"] } }))).toThrow(/https origin/);
    expect(() => widgetResource(widget(undefined, { csp: { resourceDomains: ["https://cdn.example.com/path"] } }))).toThrow(/https origin/);
    expect(() => widgetUri({ ...widget(), name: "Bad Name" })).toThrow(/widget name/);
  });

  it("frame domains go to both hosts (MCP Apps 2026-01-26 csp.frameDomains, ChatGPT frame_domains)", () => {
    const r = widgetResource(widget("<!doctype html><p>frames</p>", { csp: { frameDomains: ["https://player.example.com"] } }));
    expect((r.meta?.ui as Json).csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: ["https://player.example.com"] });
    expect(r.meta?.["openai/widgetCSP"]).toEqual({ connect_domains: [], resource_domains: [], frame_domains: ["https://player.example.com"] });
  });

  it("publishes CSP in both forms; redirect domains only for ChatGPT; the domain in both", () => {
    const r = widgetResource(widget(undefined, { csp: { connectDomains: ["https://api.example.com"], redirectDomains: ["https://pay.example.com"] }, domain: "https://widgets.example.com" }));
    expect(r.mimeType).toBe(WIDGET_MIME_TYPE);
    expect(r.meta).toEqual({
      ui: { csp: { connectDomains: ["https://api.example.com"], resourceDomains: [] }, prefersBorder: true, domain: "https://widgets.example.com" },
      "openai/widgetDescription": "A demo",
      "openai/widgetPrefersBorder": true,
      "openai/widgetCSP": { connect_domains: ["https://api.example.com"], resource_domains: [], redirect_domains: ["https://pay.example.com"] },
      "openai/widgetDomain": "https://widgets.example.com",
    });
  });
});

describe("what the server publishes", () => {
  const url = () => `${inject("statefulUrl")}/api/mcp`;
  const rpc = async (headers: Record<string, string>, method: string, params: Json = {}) => {
    const r = await post(url(), { jsonrpc: "2.0", id: 1, method, params }, headers);
    const body = r.json as { result?: Json; error?: unknown };
    if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  const WIDGETS: Record<string, string> = { get_world: "world-card", create_world: "world-card", update_world: "world-card", get_character: "character-card", create_character: "character-card", update_character: "character-card", list_worlds: "world-list", import_world: "world-card" };

  it("gives each widget tool ui.resourceUri = openai/outputTemplate, and every tool its visibility and short status lines", async () => {
    const headers = await openSession(url());
    const tools = (await rpc(headers, "tools/list")).tools as Json[];
    for (const tool of tools) {
      const meta = tool._meta as Json;
      const ui = meta.ui as Json;
      expect(ui.visibility, String(tool.name)).toEqual(["model", "app"]);
      expect(meta["openai/visibility"]).toBe("public");
      expect(meta["openai/widgetAccessible"]).toBe(true);
      for (const key of ["openai/toolInvocation/invoking", "openai/toolInvocation/invoked"]) {
        expect(typeof meta[key], `${String(tool.name)} ${key}`).toBe("string");
        expect(String(meta[key]).length).toBeLessThanOrEqual(64);
      }
      const expected = WIDGETS[String(tool.name)];
      if (expected) {
        expect(ui.resourceUri).toMatch(new RegExp(`^ui://widget/${expected}-[0-9a-f]{12}\\.html$`));
        expect(meta["openai/outputTemplate"]).toBe(ui.resourceUri);
      } else {
        expect(ui.resourceUri, String(tool.name)).toBeUndefined();
        expect(meta["openai/outputTemplate"]).toBeUndefined();
      }
    }
    expect(tools.filter((t) => WIDGETS[String(t.name)])).toHaveLength(Object.keys(WIDGETS).length);
  });

  it("serves each widget as a self-contained text/html;profile=mcp-app resource with both metadata sets", async () => {
    const headers = await openSession(url());
    const listed = ((await rpc(headers, "resources/list")).resources as Json[]).filter((r) => String(r.uri).startsWith("ui://widget/"));
    expect(listed.map((r) => String(r.uri).replace(/-[0-9a-f]{12}\.html$/, "")).sort()).toEqual(["ui://widget/character-card", "ui://widget/world-card", "ui://widget/world-list"]);
    for (const resource of listed) {
      expect(resource.mimeType).toBe("text/html;profile=mcp-app");
      const read = await rpc(headers, "resources/read", { uri: resource.uri });
      const [content] = read.contents as Json[];
      expect(content).toMatchObject({ uri: resource.uri, mimeType: "text/html;profile=mcp-app" });
      expect(content?._meta).toMatchObject({
        ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
        "openai/widgetPrefersBorder": true,
        "openai/widgetCSP": { connect_domains: [], resource_domains: [] },
        "openai/widgetDescription": expect.any(String),
      });
      const html = String(content?.text);
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain("<script>");
      // Nothing fetched: the markup around the inline script and style loads nothing, and the
      // style imports nothing (the script's own text is code, not markup).
      const markup = html.replace(/<script>[\s\S]*?<\/script>/g, "<script></script>").replace(/<style>([\s\S]*?)<\/style>/g, "<style></style>");
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
      expect(markup.match(/<(script|style)>/g)).toEqual(["<style>", "<script>"]);
      expect(/\s(src|href)=/i.test(markup), "a src or href in the widget markup").toBe(false);
      expect(/@import|url\(/i.test(style), "an import or url() in the widget style").toBe(false);
      expect(resource.size).toBe(Buffer.byteLength(html));
    }
  });
});
