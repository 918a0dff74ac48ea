import { ErrorCode, McpError } from "../jsonrpc";

function tooLarge(maxBytes: number): McpError {
  // The unread rest of a chunked body would poison a kept-alive connection (RFC 9112 §9.3): close it.
  return new McpError(ErrorCode.InvalidRequest, `Request body larger than ${maxBytes} bytes`, { maxBytes }, 413, { connection: "close" });
}

/**
 * Read a request body as UTF-8 text, refusing more than `maxBytes` with 413 before buffering it:
 * a declared Content-Length is checked up front (HTTP framing then caps the body at that length,
 * so one read is safe and cheapest); a chunked body is counted as it arrives. `given`: the body as
 * text, read by the host before the Request was built.
 */
export function readBodyLimited(request: Request, maxBytes: number, given?: string): Promise<string> {
  // A host that read the body already (lib/http/node-adapter.ts) hands it over: same limit.
  if (given !== undefined) return Buffer.byteLength(given) > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(given);
  const declared = request.headers.get("content-length");
  if (declared === null) return readCounted(request, maxBytes);
  if (Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return request.text();
}

async function readCounted(request: Request, maxBytes: number): Promise<string> {
  const chunks = await chunksWithin(request.body, maxBytes);
  if (!chunks) throw tooLarge(maxBytes);
  return utf8Text(chunks);
}

/**
 * A body's chunks as they arrive, counted: undefined (and the rest left unread, the stream
 * cancelled) the moment they pass `maxBytes`.
 */
async function chunksWithin(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array[] | undefined> {
  if (!body) return [];
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

/**
 * `request` with its body read into memory, for a handler that reads it whole anyway (better-auth,
 * the sign-in forms); undefined when the body is larger than `maxBytes`. A declared Content-Length
 * over the limit is refused before a byte is read; otherwise the body is counted as it arrives and
 * refused the moment it passes the limit (a chunked body declares nothing).
 */
export async function requestWithin(request: Request, maxBytes: number): Promise<Request | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= maxBytes)) return undefined;
  if (!request.body) return request;
  const chunks = await chunksWithin(request.body, maxBytes);
  if (!chunks) return undefined;
  return new Request(request, { body: Buffer.concat(chunks) });
}

const utf8 = new TextDecoder();

/**
 * A body's chunks as text, decoded as Request.text() decodes (UTF-8, a leading BOM dropped), so
 * every path that reads a body by hand reads it alike.
 */
export function utf8Text(chunks: readonly Uint8Array[]): string {
  return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}
