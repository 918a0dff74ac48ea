/**
 * MCP_WIDGET_DOMAIN is checked at start-up by the rule the widget registry applies to it. An
 * outside audit set it to an http:// origin: start-up passed, and then every request that listed
 * the widgets (initialize, tools/list, resources/list, the home page) answered 500.
 */
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../lib/config/env";

describe("MCP_WIDGET_DOMAIN", () => {
  it.each(["http://widgets.example.com", "https://widgets.example.com/path", "https://Widgets.example.com", "https://*.example.com", "widgets.example.com", "https://widgets.example.com?x=1"])(
    "refuses %s at start-up, naming the variable",
    (value) => {
      expect(() => loadEnv({ MCP_WIDGET_DOMAIN: value })).toThrow(/MCP_WIDGET_DOMAIN: must be an https origin/);
    },
  );

  it.each(["https://widgets.example.com", "https://widgets.example.com/", "https://widgets.example.com:8443"])("accepts %s", (value) => {
    expect(loadEnv({ MCP_WIDGET_DOMAIN: value }).MCP_WIDGET_DOMAIN).toBe(value);
  });
});
