import { describe, expect, inject, it } from "vitest";

/**
 * Paths whose percent-escapes do not decode, sent to every route with a dynamic segment: Next.js
 * would answer 500 while decoding the segment; proxy.ts answers 400 first. Routes without a
 * dynamic segment answer such a path 404 on their own.
 */
const MALFORMED = ["/api/files/%E0%A4%A", "/api/auth/%E0%A4%A", "/auth/submit/%E0%A4%A", "/records/world/%E0%A4%A", "/records/%"];

describe("malformed percent-escapes in a path", () => {
  const base = () => inject("statefulUrl");

  it.each(MALFORMED)("GET and POST %s answer 400, never 500", async (path) => {
    for (const method of ["GET", "POST"]) {
      const res = await fetch(`${base()}${path}`, { method, redirect: "manual" });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(await res.text()).toContain("malformed percent-escape");
    }
  });

  it("leaves well-formed paths to their routes", async () => {
    expect((await fetch(`${base()}/api/files/not-a-token`)).status).toBe(404);
    expect((await fetch(`${base()}/auth/submit/%73ign-in`, { method: "POST", redirect: "manual" })).status).not.toBe(400);
  });
});
