import { ErrorCode, McpError } from "../jsonrpc";

/**
 * Read a request body as UTF-8 text, refusing more than `maxBytes` with 413 before buffering it:
 * a declared Content-Length is checked first, then the stream is counted as it arrives.
 */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    // The unread rest of a chunked body would poison a kept-alive connection (RFC 9112 §9.3): close it.
    new McpError(ErrorCode.InvalidRequest, `Request body larger than ${maxBytes} bytes`, { maxBytes }, 413, { connection: "close" });
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  // One decoder for both paths so a BOM or split multi-byte character is treated the same way.
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}
