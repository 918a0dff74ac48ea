import { connect } from "node:net";
import { describe, expect, inject, it } from "vitest";

/**
 * Next answers two request headers itself before a route handler runs: `x-middleware-prefetch`
 * with 200 `{}`, `RSC: 1` with a 307 to `?_rsc`. Under `npm start` the front removes them on the
 * route handlers' paths (lib/http/framework-headers.mjs), so each request is the route's to answer:
 * a foreign Origin still 403, a DELETE of a session really ends it (outside probe, 2026-11-29).
 */
const base = () => inject("statefulUrl");
const JSON_RPC = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function initialize(): Promise<string> {
  const res = await fetch(`${base()}/api/mcp`, {
    method: "POST",
    headers: JSON_RPC,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "framework-headers", version: "1" } } }),
  });
  expect(res.status).toBe(200);
  const id = res.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  await res.body?.cancel();
  return id as string;
}

describe.each([
  ["x-middleware-prefetch", "1"],
  ["x-middleware-prefetch", "0"],
  ["rsc", "1"],
])("%s: %s on a route handler", (name, value) => {
  it("a foreign Origin is still refused 403 by /api/mcp", async () => {
    const res = await fetch(`${base()}/api/mcp`, { method: "POST", redirect: "manual", headers: { ...JSON_RPC, [name]: value, origin: "https://evil.example" }, body: "not json" });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await res.json()).error.code).toBe(-32600);
  });

  it("a body that is not JSON is still a parse error", async () => {
    const res = await fetch(`${base()}/api/mcp`, { method: "POST", redirect: "manual", headers: { ...JSON_RPC, [name]: value }, body: "not json" });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it("DELETE ends the session: a later request on it is 404", async () => {
    const session = await initialize();
    const del = await fetch(`${base()}/api/mcp`, { method: "DELETE", redirect: "manual", headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25", [name]: value } });
    expect(del.status).toBe(200);
    await del.body?.cancel();
    const ping = await fetch(`${base()}/api/mcp`, { method: "POST", headers: { ...JSON_RPC, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) });
    expect(ping.status).toBe(404);
    await ping.body?.cancel();
  });

  it("the discovery and health routes answer as themselves", async () => {
    for (const path of ["/api/health", "/.well-known/oauth-protected-resource/api/mcp"]) {
      const res = await fetch(`${base()}${path}`, { redirect: "manual", headers: { [name]: value } });
      expect(res.status, path).not.toBe(307);
      expect(await res.text(), path).not.toBe("{}");
    }
  });
});

describe("pages keep them", () => {
  it("RSC: 1 on a page still gets Next's own handling (its client router sends it there)", async () => {
    const res = await fetch(`${base()}/auth/sign-in`, { redirect: "manual", headers: { rsc: "1" } });
    const type = res.headers.get("content-type") ?? "";
    expect(res.status === 307 || type.includes("text/x-component"), `${res.status} ${type}`).toBe(true);
    await res.body?.cancel();
  });
});

// Outside probe, 2026-11-29: the front matched the raw path, Next routes the normalized one, so
// `/./api/mcp` reached /api/mcp with the header kept and got Next's 200 `{}` past the Origin check.
describe("dot segments in the path", () => {
  it.each(["/./api/mcp", "/x/../api/mcp", "/%2e/api/mcp"])("%s with x-middleware-prefetch from a foreign Origin is still 403", async (path) => {
    const { host, port } = new URL(base());
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: host.split(":")[0], port: Number(port) }, () => {
        const body = "{}";
        socket.write(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nOrigin: https://evil.example\r\nX-Middleware-Prefetch: 1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      });
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => (received += d));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
      socket.setTimeout(5_000, () => socket.destroy(new Error("no answer")));
    });
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
  });
});
