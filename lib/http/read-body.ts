import { ErrorCode, McpError } from "../jsonrpc";

function tooLarge(maxBytes: number): McpError {
  // The unread rest of a chunked body would poison a kept-alive connection (RFC 9112 §9.3): close it.
  return new McpError(ErrorCode.InvalidRequest, `Request body larger than ${maxBytes} bytes`, { maxBytes }, 413, { connection: "close" });
}

/** RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8; anything else is not JSON text. */
function notUtf8(): McpError {
  return new McpError(ErrorCode.ParseError, "Parse error: the body is not valid UTF-8");
}

/**
 * Read a request body as UTF-8 text, refusing more than `maxBytes` with 413 before buffering it
 * (a declared Content-Length is checked up front; the bytes are counted as they arrive) and a body
 * that is not UTF-8 with -32700. `given`: the body as text, read (and decoded) by the host before
 * the Request was built.
 */
export function readBodyLimited(request: Request, maxBytes: number, given?: string): Promise<string> {
  // A host that read the body already (lib/http/node-adapter.ts) hands it over: same limit.
  if (given !== undefined) return Buffer.byteLength(given) > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(given);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  if (!request.body) return Promise.resolve("");
  return readStream(request.body, maxBytes);
}

/** Read by hand rather than with Request.text(), which decodes leniently: an invalid byte would become U+FFFD and be stored. */
async function readStream(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const text = utf8Text(chunks);
  if (text === undefined) throw notUtf8();
  return text;
}
// fatal: a byte sequence that is not UTF-8 fails the decode instead of becoming U+FFFD; it costs
// no more than the lenient decoder on valid text (WHATWG Encoding §10.2, "fatal" error mode).
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body's chunks as text, decoded strictly as UTF-8 (a leading BOM dropped, as Request.text()
 * drops it), so every path that reads a body reads it alike; undefined when the bytes are not UTF-8.
 */
export function utf8Text(chunks: readonly Uint8Array[]): string | undefined {
  try {
    return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    return undefined;
  }
}
