import net from "node:net";
import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { JSON_AND_SSE, post } from "../support/mcp-http";
import { readBearer } from "../../lib/auth/bearer-token";

/**
 * Issue 19: a request with two Authorization headers is refused (400, invalid_request), never
 * authenticated by whichever comes first. Node keeps only the first in `req.headers`; `npm start`
 * (scripts/start.mjs) reads the raw headers and joins them as Fetch does, and a joined value that
 * is not one well-formed `Bearer <token>` is malformed — in both eras, and when a client or proxy
 * joined them itself.
 */
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** One HTTP/1.1 request written by hand, so headers can repeat; the status line and headers of the answer. */
function rawPost(url: string, headers: [string, string][], body: string): Promise<{ status: number; head: string }> {
  const { hostname, port, pathname } = new URL(url);
  const lines = [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`, ...headers.map(([k, v]) => `${k}: ${v}`)];
  return new Promise((resolve, reject) => {
    // write, not end: a half-closed request may be dropped unanswered; "Connection: close" ends it.
    const socket = net.connect(Number(port), hostname, () => socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", reject);
    socket.on("end", () => {
      const head = text.split("\r\n\r\n", 1)[0] ?? "";
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head });
    });
  });
}

const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "dup", version: "1" } } });
const discover2026 = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });
const ERA_REQUESTS = [
  { era: "2025-11-25", body: initialize, headers: [] as [string, string][] },
  { era: "2026-07-28", body: discover2026, headers: [["MCP-Protocol-Version", "2026-07-28"], ["Mcp-Method", "tools/list"]] as [string, string][] },
];

describe.each(ERA_REQUESTS)("in $era", ({ body, headers }) => {
  const url = () => `${inject("statefulUrl")}/api/mcp`;
  const base: [string, string][] = [["Content-Type", "application/json"], ["Accept", JSON_AND_SSE], ...headers];

  it("a valid token followed by garbage in a second Authorization header is 400 invalid_request", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("dup"));
    for (const pair of [[`Bearer ${token}`, "Bearer garbage"], [`Bearer ${token}`, `Bearer ${token}`], ["Bearer garbage", `Bearer ${token}`]]) {
      const r = await rawPost(url(), [...base, ["Authorization", pair[0] as string], ["Authorization", pair[1] as string]], body);
      expect(r.status, r.head).toBe(400);
      expect(r.head.toLowerCase()).toContain('error="invalid_request"');
    }
    // One header with the same token is fine.
    expect((await rawPost(url(), [...base, ["Authorization", `Bearer ${token}`]], body)).status).toBe(200);
  });

  // Node 20 keeps 1,000 header lines and drops the rest unseen (outside audit, 2026-11-27): the gate
  // in front of Next refuses a section that reaches the limit (Node 24 refuses it itself), so no
  // second credential hides past it.
  it("a second Authorization past Node's 1,000th header line is 431, never run as the first", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("dup-far"));
    // Short lines: the section stays under Node's 16 KiB, whose own 431 would prove nothing here.
    const filler = (n: number) => Array.from({ length: n }, (): [string, string] => ["a", "b"]);
    const far = await rawPost(url(), [...base, ["Authorization", `Bearer ${token}`], ...filler(1100), ["Authorization", "Bearer garbage"]], body);
    expect(far.status, far.head.slice(0, 200)).toBe(431);
    expect(far.head.toLowerCase()).toContain("connection: close");
    // Below the limit every line is seen, and the pair is refused as above.
    const near = await rawPost(url(), [...base, ["Authorization", `Bearer ${token}`], ...filler(900), ["Authorization", "Bearer garbage"]], body);
    expect(near.status, near.head.slice(0, 200)).toBe(400);
  });

  it("a joined value that is not one well-formed Bearer credential is 400 too", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("joined"));
    for (const joined of [`Bearer ${token}, Bearer garbage`, `Basic dXNlcjpwYXNz, Bearer ${token}`, `Bearer ${token},`]) {
      const r = await post(url(), body, { ...Object.fromEntries(headers), authorization: joined });
      expect(r.status, `${joined.slice(0, 30)}: ${r.text}`).toBe(400);
      expect(r.headers.get("www-authenticate")).toContain('error="invalid_request"');
    }
  });
});

describe("readBearer (what every host's joined value meets)", () => {
  const request = (authorization: string) => new Request("http://x/api/mcp", { headers: { authorization } });

  it("only one well-formed Bearer credential is a token; a list with a Bearer in it is malformed", () => {
    expect(readBearer(request("Bearer abc.def-ghi"))).toEqual({ kind: "token", token: "abc.def-ghi" });
    expect(readBearer(request("Bearer a, Bearer b")).kind).toBe("malformed");
    expect(readBearer(request("Basic eA==, Bearer b")).kind).toBe("malformed");
    expect(readBearer(request("Basic eA==")).kind).toBe("none");
  });
});
