import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { UNREAD_BODY_GRACE_MS } from "../../lib/http/unread-body-close.mjs";

/**
 * Requests Next.js would answer 500 while building them, before any handler runs, answered first
 * by the request gate in front of it (lib/http/request-gate.mjs, under `npm start`) and, where
 * there is none, proxy.ts:
 * - paths whose percent-escapes do not decode, sent to every route with a dynamic segment: 400,
 *   with a body or without;
 * - methods Next cannot build a web Request for (undici refuses TRACE and CONNECT) or dispatches
 *   to no route (PROPFIND, QUERY…): 501 Not Implemented on every route and page (RFC 9110 §15.6.2);
 * - a transfer coding other than chunked alone: 501 (RFC 9112 §6.1).
 */
const MALFORMED = ["/api/files/%E0%A4%A", "/api/auth/%E0%A4%A", "/auth/submit/%E0%A4%A", "/records/world/%E0%A4%A", "/records/%"];

const base = () => inject("statefulUrl");

/** One request over node:http, which sends any method as given (fetch refuses TRACE). */
function send(method: string, path: string, body?: string, origin = base()): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers: body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }, signal: AbortSignal.timeout(5_000) }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("malformed percent-escapes in a path", () => {
  it.each(MALFORMED)("GET and POST %s answer 400, never 500", async (path) => {
    for (const method of ["GET", "POST"]) {
      const res = await fetch(`${base()}${path}`, { method, redirect: "manual" });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(await res.text()).toContain("malformed percent-escape");
    }
  });

  it.each(MALFORMED)("a POST with a body to %s answers 400 too", async (path) => {
    for (const body of ["a=b", "x".repeat(100_000)]) {
      const res = await send("POST", path, body);
      expect(res.status, `POST ${path} with ${body.length} bytes`).toBe(400);
      expect(res.text).toContain("malformed percent-escape");
    }
  });

  it("leaves well-formed paths to their routes", async () => {
    expect((await fetch(`${base()}/api/files/not-a-token`)).status).toBe(404);
    expect((await fetch(`${base()}/auth/submit/%73ign-in`, { method: "POST", redirect: "manual" })).status).not.toBe(400);
  });
});

describe("methods no route serves", () => {
  const ROUTES = ["/api/mcp", "/api/health", "/.well-known/oauth-protected-resource/api/mcp", "/.well-known/mcp/server-card", "/api/auth/jwks", "/auth/sign-in", "/auth/submit/sign-in", "/"];

  it.each(ROUTES)("TRACE, PROPFIND and QUERY on %s answer 501, never 500", async (path) => {
    for (const method of ["TRACE", "PROPFIND", "QUERY"]) {
      const res = await send(method, path);
      expect(res.status, `${method} ${path}`).toBe(501);
      expect(res.text).toContain("Not Implemented");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
  });

  it("CONNECT is answered 501, not dropped", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const url = new URL(base());
      const socket = connect(Number(url.port), url.hostname, () => socket.write(`CONNECT ${url.host} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => (text += d));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.setTimeout(5_000, () => reject(new Error("no answer to CONNECT")));
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 501 Not Implemented");
  });

  // Outside review: after a CONNECT Node detaches its parser and timeouts, and the server's sockets
  // allow half-open connections, so a client that never closed its side held the socket forever.
  it("closes a CONNECT's socket after its 501 even when the client keeps its side open", async () => {
    const url = new URL(base());
    const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    socket.on("connect", () => socket.write(`CONNECT ${url.host} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
    socket.resume();
    await new Promise<void>((resolve, reject) => {
      socket.once("end", () => resolve());
      socket.once("error", reject);
    });
    // Past the server's linger, bytes sent on our still-open side meet a closed socket: a reset.
    await new Promise((r) => setTimeout(r, 1_500));
    const gone = await new Promise<string>((resolve) => {
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      socket.once("close", () => resolve("closed"));
      setTimeout(() => resolve("still open"), 3_000);
      socket.write("more bytes\r\n");
      setTimeout(() => socket.write("and more\r\n"), 200);
    });
    socket.destroy();
    expect(gone).not.toBe("still open");
  });

  // RFC 9112 §6.1: a transfer coding the server does not understand SHOULD be 501. Node undid the
  // chunked framing of "gzip, chunked" and ran the rest as plain JSON (outside audit, 2026-11-27).
  it("a transfer coding other than chunked alone is 501 and closes the connection; chunked alone is read", async () => {
    const url = new URL(base());
    const exchange = (coding: string) =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
        const head = [`POST /api/mcp HTTP/1.1`, `Host: ${url.host}`, "Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list", `Transfer-Encoding: ${coding}`, "Connection: close"];
        const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head.join("\r\n")}\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`));
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (d: string) => (text += d));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
        socket.setTimeout(5_000, () => reject(new Error(`no answer with Transfer-Encoding: ${coding}`)));
      });
    for (const coding of ["gzip, chunked", "identity, chunked", "deflate,chunked"]) {
      const answer = await exchange(coding);
      expect(answer.split("\r\n")[0], coding).toBe("HTTP/1.1 501 Not Implemented");
      expect(answer.toLowerCase()).toContain("connection: close");
      expect(answer).toContain("the only transfer coding this server reads is chunked");
    }
    expect((await exchange("Chunked")).split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  });

  describe("on a server of this file's own, whose log is read", () => {
    let own: RunningNextServer;
    beforeAll(async () => {
      own = await startNextServer({ env: { DATABASE_URL: inject("databaseUrl"), MCP_RATE_LIMITS: "0" } });
    }, 90_000);
    afterAll(async () => {
      await own?.stop();
    });

    it("nothing reaches Next: no stack, no error in the log", async () => {
      for (const path of ROUTES) expect((await send("TRACE", path, undefined, own.url)).status).toBe(501);
      for (const method of ["GET", "POST", "OPTIONS"]) await raw([`${method} * HTTP/1.1`, `Host: ${new URL(own.url).host}`, "Connection: close"], "", own.url);
      // A 200 after them: the log has caught up with the TRACEs.
      expect((await fetch(`${own.url}/api/health?probe=live`)).status).toBe(200);
      expect(own.stderr()).not.toMatch(/TypeError|HTTP method is unsupported|\n +at /);
    });
  });
});

/**
 * One exchange over a bare socket, which sends the request line and header lines exactly as
 * given: what the server wrote until it closed, or until `waitMs` passed (then `closed` is false).
 * `body`, when given, follows the head; `holdOpen` keeps our side open after it.
 */
function raw(head: string[], body = "", origin = base(), waitMs = 5_000, trickleMs?: number): Promise<{ text: string; closed: boolean }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    let trickle: ReturnType<typeof setInterval> | undefined;
    const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true }, () => {
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
      // A slow sender: one more byte of the body every `trickleMs`.
      if (trickleMs !== undefined) trickle = setInterval(() => socket.writable && socket.write("a"), trickleMs);
    });
    let text = "";
    const timer = setTimeout(() => {
      clearInterval(trickle);
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on("close", () => clearInterval(trickle));
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("end", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed: true });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A server that closes on a sender still trickling bytes may reset rather than end: the
      // kernel answers bytes that reach a closed socket with RST (RFC 9293 §3.10.7.1). After the
      // answer has arrived that is the connection closing, which is what the trickle tests ask.
      if (trickleMs !== undefined && error.code === "ECONNRESET" && /^HTTP\/1\.1 \d{3} /.test(text)) return resolve({ text, closed: true });
      reject(error);
    });
  });
}

const statusLine = (text: string) => text.split("\r\n")[0];

// RFC 9112 §3.2: the request-target's forms (outside audit, 2026-11-28: `*` was a 500 with a stack
// in the log, and an absolute URL a 308 to itself).
describe("request targets other than a path", () => {
  const host = () => new URL(base()).host;

  it("OPTIONS * is answered for the server as a whole: 204 with Allow", async () => {
    const { text } = await raw(["OPTIONS * HTTP/1.1", `Host: ${host()}`, "Connection: close"]);
    expect(statusLine(text)).toBe("HTTP/1.1 204 No Content");
    expect(text.toLowerCase()).toContain("allow: get, head, options, post, put, delete, patch");
    expect(text.toLowerCase()).not.toContain("content-length");
  });

  it.each(["GET", "HEAD", "POST", "DELETE"])("%s * is 400, never 500", async (method) => {
    const { text } = await raw([`${method} * HTTP/1.1`, `Host: ${host()}`, "Content-Length: 0", "Connection: close"]);
    expect(statusLine(text)).toBe("HTTP/1.1 400 Bad Request");
    if (method !== "HEAD") expect(text).toContain("the request target * is for OPTIONS only");
  });

  it.each(["example.com:80", "ftp://example.com/api/health", "http://user@example.com/api/health", "http:///api/health", "?probe=live"])("a target of no usable form (%s) is 400", async (target) => {
    const { text } = await raw([`GET ${target} HTTP/1.1`, `Host: ${host()}`, "Connection: close"]);
    expect(statusLine(text), target).toBe("HTTP/1.1 400 Bad Request");
  });

  it("an absolute URL is served as its path, for a GET and for an MCP POST", async () => {
    const health = await raw([`GET http://${host()}/api/health?probe=live HTTP/1.1`, `Host: ${host()}`, "Connection: close"]);
    expect(statusLine(health.text)).toBe("HTTP/1.1 200 OK");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
    const head = [`POST http://${host()}/api/mcp HTTP/1.1`, `Host: ${host()}`, "Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
    const mcp = await raw(head, body);
    expect(statusLine(mcp.text)).toBe("HTTP/1.1 200 OK");
    expect(mcp.text).toContain('"id":7');
    expect(mcp.text).toContain('"tools":[');
  });

  it("two Host lines are 400 (a MUST of RFC 9112 §3.2), in either order", async () => {
    for (const hosts of [[host(), "evil.example"], ["evil.example", host()]]) {
      const { text } = await raw(["GET /api/health?probe=live HTTP/1.1", ...hosts.map((h) => `Host: ${h}`), "Connection: close"]);
      expect(statusLine(text)).toBe("HTTP/1.1 400 Bad Request");
      expect(text).toContain("more than one Host header");
    }
  });
});

// Outside audit (2026-11-28): a route that answers without reading the body left Node reading the
// rest for as long as the sender trickled it (up to 300 s), the connection held for nothing.
describe("an answer sent while the request's body still arrives", () => {
  it.each([
    ["GET", "/api/files/not-a-token"],
    ["POST", "/auth/sign-in"],
  ])("%s %s: the connection closes a grace after the answer when the rest keeps trickling", async (method, path) => {
    const head = [`${method} ${path} HTTP/1.1`, `Host: ${new URL(base()).host}`, "Content-Type: application/x-www-form-urlencoded", "Content-Length: 500"];
    const { text, closed } = await raw(head, "a", base(), UNREAD_BODY_GRACE_MS + 3_000, 250);
    expect(statusLine(text)).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(closed).toBe(true);
  });

  it("a body that has all arrived, read or not, keeps the connection alive past the grace", async () => {
    for (const [method, path] of [["GET", "/api/files/not-a-token"], ["POST", "/auth/sign-in"]]) {
      const { text, closed } = await raw([`${method} ${path} HTTP/1.1`, `Host: ${new URL(base()).host}`, "Content-Type: application/x-www-form-urlencoded", "Content-Length: 1"], "a", base(), UNREAD_BODY_GRACE_MS + 1_500);
      expect(statusLine(text), path).toMatch(/^HTTP\/1\.1 \d{3} /);
      expect(text.toLowerCase(), path).toContain("connection: keep-alive");
      expect(closed, path).toBe(false);
    }
  });
});
