import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { HandleInit } from "./handle-init";
import { bodyTimedOut, utf8Text } from "./read-body";
import { wholeBodyOf } from "./whole-body";
import { repeatedHeadersHeader, repeatedMcpHeaders } from "./trusted-host.mjs";

/**
 * The core on a plain `node:http` server (or anything that hands over node's request and
 * response: Express, Fastify's raw objects): node request → web Request, web Response → node
 * response. Next.js does this itself for app/api/mcp/route.ts; this is for hosting the same
 * endpoint without it.
 *
 *   http.createServer(nodeListener(endpoint, { baseUrl: "http://127.0.0.1:3000" })).listen(3000)
 *
 * The rate limits count requests, not connections: `capConnections(server)` (connection-cap.mjs)
 * bounds what one client holds open, as `npm start` does.
 *
 * Streams stay streams (SSE answers flow with back-pressure; a chunked request body is read by
 * the core, which counts it against its limit). The common case is cut short on both sides: a
 * body with a Content-Length within the limit is read here and handed over as text, and a JSON
 * answer built whole is written in one piece with its length. On Node 20 the web streams those
 * two steps would otherwise go through cost more than the core's own work for a small call.
 */

/** The part of an endpoint (lib/mcp createMcpEndpoint) this adapter calls. */
export interface WebHandler {
  handle(request: Request, init?: HandleInit): Promise<Response>;
}

export interface NodeListenerOptions {
  /** Scheme and authority the Request URLs get (the path comes from the request line). */
  baseUrl: string;
  /** Bodies declaring more than this are not read here (the core answers 413 unread). */
  maxBodyBytes: number;
  /**
   * A body this adapter reads must have arrived within this long, else the core answers 408 and the
   * connection closes (give it the core's MCP_BODY_TIMEOUT_MS). Absent: Node's own requestTimeout.
   */
  bodyTimeoutMs?: number;
}

const NO_BODY = new Set(["GET", "HEAD"]);

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  // Appending joins repeated lines; the checks learn which were repeated (trusted-host.mjs).
  const repeated = repeatedMcpHeaders(raw);
  if (repeated) headers.set(repeatedHeadersHeader(), repeated);
  return headers;
}

/**
 * The whole body, for a request whose Content-Length is within the limit (framing caps it there).
 * Rejects with why it did not all arrive: the client broke off, or `timeoutMs` passed (the core's
 * 408; reading stops, and that answer closes the connection with the rest unread).
 */
function readDeclared(req: IncomingMessage, timeoutMs: number | undefined): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const deadline =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            req.removeListener("data", onData);
            req.pause();
            reject(bodyTimedOut(timeoutMs));
          }, timeoutMs);
    req.on("data", onData);
    req.once("end", () => {
      clearTimeout(deadline);
      resolve(chunks);
    });
    req.once("error", (failed: unknown) => {
      clearTimeout(deadline);
      reject(failed);
    });
  });
}

/** A body stream that fails at once with `reason`: the core answers the failure as its own read's. */
function failingBody(reason: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.error(reason) });
}

function declaredWithin(req: IncomingMessage, maxBytes: number): boolean {
  const declared = req.headers["content-length"];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= maxBytes;
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const whole = wholeBodyOf(response);
  if (whole !== undefined) {
    headers["content-length"] = String(typeof whole === "string" ? Buffer.byteLength(whole) : whole.byteLength);
    res.writeHead(response.status, headers);
    res.end(whole);
    return;
  }
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  // The client left: cancelling the stream tells the core (SSE streams end, handlers abort).
  res.once("close", () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
  }
  res.end();
}

/** A `(req, res)` listener serving `endpoint` for every request it is given. */
export function nodeListener(endpoint: WebHandler, options: NodeListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const base = options.baseUrl.replace(/\/$/, "");
  return (req, res) => {
    const abort = new AbortController();
    // A connection closed before the answer was written is the request's cancellation.
    res.once("close", () => {
      if (!res.writableFinished) abort.abort(new Error("the client went away"));
    });
    const method = req.method ?? "GET";
    const url = `${base}${req.url ?? "/"}`;
    // The signal goes beside the Request, not into it (HandleInit): a Request that follows a
    // signal costs about twice as much to build. JSON answers are written from wholeBodyOf().
    const init: RequestInit = { method, headers: headersOf(req) };
    const host: HandleInit = { signal: abort.signal, wholeBodies: true, ...(req.socket.remoteAddress ? { clientAddress: req.socket.remoteAddress } : {}) };
    const served = NO_BODY.has(method)
      ? endpoint.handle(new Request(url, init), host)
      : declaredWithin(req, options.maxBodyBytes)
        ? readDeclared(req, options.bodyTimeoutMs).then(
            (chunks) => {
              const body = utf8Text(chunks);
              if (body !== undefined) return endpoint.handle(new Request(url, init), { ...host, body });
              // Not UTF-8: the core reads the bytes itself, and refuses them.
              return endpoint.handle(new Request(url, { ...init, body: new Uint8Array(Buffer.concat(chunks)) }), host);
            },
            // Stalled or broken off: the core meets the failure reading its body, and answers it.
            (failed: unknown) => endpoint.handle(new Request(url, { ...init, body: failingBody(failed), duplex: "half" } as RequestInit), host),
          )
        : // Chunked, or declared over the limit: the core reads (and counts) or refuses it.
          endpoint.handle(new Request(url, { ...init, body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } as RequestInit), host);
    served
      .then((response) => send(response, res))
      .catch((thrown: unknown) => {
        // The core answers every failure itself; this is a broken socket or a bug in a host.
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end("Internal Server Error");
        } else res.destroy(thrown instanceof Error ? thrown : undefined);
      });
  };
}
