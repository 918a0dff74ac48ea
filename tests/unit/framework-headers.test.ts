import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { dropFrameworkHeaders, isRouteHandlerPath, ROUTE_HANDLER_PREFIXES } from "../../lib/http/framework-headers.mjs";

/**
 * lib/http/framework-headers.mjs removes Next's prefetch and RSC headers on the route handlers'
 * paths only: the prefixes it keeps must cover every route.ts in app/ and no page.tsx, or a new
 * route would be open to Next's `{}` again, or a page would lose its client navigation.
 */
const APP = join(import.meta.dirname, "..", "..", "app");

/** The URL path of each file named `name` under app/ (a [segment] stands for any value). */
function pathsOf(name: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === name) found.push(`/${relative(APP, dir).split(sep).join("/")}`.replace(/\/$/, "") || "/");
    }
  };
  walk(APP);
  return found.map((path) => path.replace(/\[\.\.\.[^\]]+\]|\[[^\]]+\]/g, "x"));
}

describe("framework headers", () => {
  it("the route handlers' prefixes cover every route.ts and no page.tsx", () => {
    const routes = pathsOf("route.ts");
    const pages = pathsOf("page.tsx");
    expect(routes.length).toBeGreaterThan(10);
    expect(pages.length).toBeGreaterThan(3);
    for (const route of routes) expect(isRouteHandlerPath(`${route}/`) || isRouteHandlerPath(route), route).toBe(true);
    for (const page of pages) expect(isRouteHandlerPath(page), page).toBe(false);
    expect(ROUTE_HANDLER_PREFIXES.length).toBeGreaterThan(0);
  });

  it("drops x-middleware-prefetch and RSC on a route handler's path, with its query", () => {
    const headers: Record<string, string> = { rsc: "1", "x-middleware-prefetch": "1", "content-type": "application/json" };
    dropFrameworkHeaders("/api/mcp?x=1", headers);
    expect(headers).toEqual({ "content-type": "application/json" });
  });

  it("leaves them on a page, and leaves every other header", () => {
    const headers: Record<string, string> = { rsc: "1", "x-middleware-prefetch": "1", "next-router-state-tree": "%5B%5D" };
    dropFrameworkHeaders("/auth/sign-in?x=1", headers);
    expect(headers).toEqual({ rsc: "1", "x-middleware-prefetch": "1", "next-router-state-tree": "%5B%5D" });
    const other: Record<string, string> = { "next-router-prefetch": "1" };
    dropFrameworkHeaders("/api/mcp", other);
    expect(other).toEqual({ "next-router-prefetch": "1" });
  });
});
