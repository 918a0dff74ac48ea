import { ErrorCode, McpError } from "../jsonrpc";

/** How a request body is read: at most `maxBytes`, all of it within `timeoutMs`. */
export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

function tooLarge(maxBytes: number): McpError {
  // The unread rest of a chunked body would poison a kept-alive connection (RFC 9112 §9.3): close it.
  return new McpError(ErrorCode.InvalidRequest, `Request body larger than ${maxBytes} bytes`, { maxBytes }, 413, { connection: "close" });
}

/**
 * RFC 9110 §15.5.9: the body did not arrive in time. Reading stops and the connection closes (its
 * unread rest would otherwise be read as the next request, RFC 9112 §9.3).
 */
export function bodyTimedOut(timeoutMs: number): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Request Timeout: the body did not arrive within ${timeoutMs} ms`, { timeoutMs }, 408, { connection: "close" });
}

/**
 * The body stopped arriving because the client went away (the connection closed or reset mid-body):
 * the client's doing, not a server failure. Answered like a bad request, should anyone still listen.
 */
export class BodyAborted extends McpError {
  constructor() {
    super(ErrorCode.InvalidRequest, "Bad Request: the connection closed before the whole body arrived", undefined, 400, { connection: "close" });
  }
}

/**
 * RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8; anything else is not JSON text. The
 * form encoding's bytes, and what its percent-escapes spell, are UTF-8 too (WHATWG URL,
 * application/x-www-form-urlencoded). `what`: the part of the body that is not.
 */
function notUtf8(what = "the body is"): McpError {
  return new McpError(ErrorCode.ParseError, `Parse error: ${what} not valid UTF-8`, undefined, 400);
}

/**
 * Read a request body as UTF-8 text within `limits`: more than `maxBytes` is 413 (a declared
 * Content-Length is checked up front; the bytes are counted as they arrive), a body still
 * incomplete after `timeoutMs` is 408, one that is not UTF-8 is -32700, and one the client stops
 * sending is BodyAborted. `given`: the body as text, read (and decoded) by the host before the
 * Request was built.
 */
export function readBodyLimited(request: Request, limits: BodyLimits, given?: string): Promise<string> {
  // A host that read the body already (lib/http/node-adapter.ts) hands it over: same limit.
  if (given !== undefined) return Buffer.byteLength(given) > limits.maxBytes ? Promise.reject(tooLarge(limits.maxBytes)) : Promise.resolve(given);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes));
  if (!request.body) return Promise.resolve("");
  return readStream(request.body, limits);
}

/**
 * Read by hand rather than with Request.text(): only the reader's owner can stop a read that
 * stalls, and text() decodes leniently (an invalid byte becomes U+FFFD and would be stored).
 */
async function readStream(body: ReadableStream<Uint8Array>, limits: BodyLimits): Promise<string> {
  const text = utf8Text(await readChunks(body, limits));
  if (text === undefined) throw notUtf8();
  return text;
}

/**
 * The most pieces a body may arrive in: one per BYTES_PER_CHUNK of its limit, and a few more. Every
 * piece of a chunked body, however small, is a buffer, a stream entry and a read in the host and
 * here: 1-byte chunks made a body within the limit cost about a hundred times its size in memory
 * and seconds of CPU (outside probe, 2026-11-29: three 900 KB bodies took 1.1 GB and 12 s). A body
 * sent in ordinary pieces (the socket's reads are up to 64 KB) is nowhere near it.
 */
const BYTES_PER_CHUNK = 256;
export const maxChunksFor = (maxBytes: number): number => Math.ceil(maxBytes / BYTES_PER_CHUNK) + 16;

function tooFragmented(maxChunks: number): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Request body in more than ${maxChunks} chunks: send it in larger pieces (about ${BYTES_PER_CHUNK} bytes or more each)`, { maxChunks }, 413, { connection: "close" });
}

/**
 * A body's chunks within `limits`: 413 the moment they pass `maxBytes`, or come in more pieces
 * than maxChunksFor allows (the rest left unread, the stream cancelled), 408 when they are still
 * incomplete after `timeoutMs`, BodyAborted when the client stops sending.
 */
async function readChunks(body: ReadableStream<Uint8Array>, { maxBytes, timeoutMs }: BodyLimits): Promise<Uint8Array[]> {
  const reader = body.getReader();
  const maxChunks = maxChunksFor(maxBytes);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let expired = false;
  // Cancelling settles the pending read as if the body had ended: `expired` tells the two apart.
  const deadline = setTimeout(() => {
    expired = true;
    reader.cancel().catch(() => undefined);
  }, timeoutMs);
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (cause) {
        // A host may fail its body with the refusal itself (node-adapter.ts); any other failure of
        // the stream is the connection's: the client closed or reset it mid-body.
        throw expired ? bodyTimedOut(timeoutMs) : cause instanceof McpError ? cause : new BodyAborted();
      }
      if (expired) throw bodyTimedOut(timeoutMs);
      if (step.done) return chunks;
      total += step.value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      if (chunks.length >= maxChunks) {
        await reader.cancel().catch(() => undefined);
        throw tooFragmented(maxChunks);
      }
      chunks.push(step.value);
    }
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * `request` with its body read into memory within `limits`, for a handler that reads it whole
 * anyway, as text, and would read any size (better-auth, the sign-in forms: JSON or the form
 * encoding). Refused as readBodyLimited refuses (413 before a byte is read when the declared
 * length is over, 408, BodyAborted, 400 for bytes that are not UTF-8), and so is a form-encoded
 * body whose percent-escapes spell bytes that are not UTF-8: the handler's own decoders (Fetch's
 * text(), json(), formData()) would make each a U+FFFD and store it. The bytes are passed on as
 * they came.
 */
export async function requestWithin(request: Request, limits: BodyLimits): Promise<Request> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= limits.maxBytes)) throw tooLarge(limits.maxBytes);
  if (!request.body) return request;
  const body = Buffer.concat(await readChunks(request.body, limits));
  if (utf8Text([body]) === undefined) throw notUtf8();
  if (isFormEncoded(request.headers.get("content-type")) && utf8Text([percentDecoded(body)]) === undefined) throw notUtf8("the percent-escapes of the form body are");
  return new Request(request, { body });
}

/**
 * Whether a body of this Content-Type is read as form-encoded: as better-call reads it (JSON when
 * the type starts as JSON, else the form encoding when the type mentions it anywhere), which
 * covers Fetch's formData() (the type's essence) too.
 */
function isFormEncoded(contentType: string | null): boolean {
  if (contentType === null || /^application\/([a-z0-9.+-]*\+)?json/i.test(contentType)) return false;
  return contentType.toLowerCase().includes("application/x-www-form-urlencoded");
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * The bytes a form-encoded body spells (WHATWG URL, percent-decode): each `%XX` becomes its byte
 * and every other byte, a `%` without two hex digits after it included, stays. `&`, `=` and `+`
 * are ASCII, so the whole is UTF-8 exactly when every name and value is.
 */
function percentDecoded(bytes: Uint8Array): Uint8Array {
  if (!bytes.includes(0x25)) return bytes;
  const out = new Uint8Array(bytes.byteLength);
  let length = 0;
  for (let i = 0; i < bytes.byteLength; i += 1) {
    const hex = bytes[i] === 0x25 ? String.fromCharCode(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0) : "";
    if (HEX.test(hex)) {
      out[length++] = Number.parseInt(hex, 16);
      i += 2;
    } else {
      out[length++] = bytes[i] ?? 0;
    }
  }
  return out.subarray(0, length);
}

// fatal (WHATWG Encoding, TextDecoder): a byte sequence that is not UTF-8 fails the decode instead
// of becoming U+FFFD. On valid text it costs what the lenient decoder costs.
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
