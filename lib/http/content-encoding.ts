import { ErrorCode, McpError } from "../jsonrpc";

/**
 * Request bodies are read as they come: no coding is undone. A body sent with any
 * Content-Encoding but `identity` (RFC 9110 §8.4) would be parsed as the coded bytes, so it is
 * refused before it is read instead.
 */

/** The codings a request body may carry: none. */
const ACCEPTED = "identity";

/** True when a Content-Encoding header is absent or names only `identity` (its list may repeat it). */
export function isIdentityEncoding(header: string | null): boolean {
  if (header === null) return true;
  for (const coding of header.split(",")) {
    const name = coding.trim().toLowerCase();
    if (name !== "" && name !== ACCEPTED) return false;
  }
  return true;
}

/**
 * RFC 9110 §15.5.16: 415 for a content coding the server does not accept, with Accept-Encoding
 * naming the ones it does (§12.5.3: "in a 415 response … to indicate which encodings are acceptable").
 */
export function unsupportedEncoding(header: string): McpError {
  const named = header.length > 64 ? `${header.slice(0, 64)}…` : header;
  return new McpError(
    ErrorCode.InvalidRequest,
    `Unsupported Media Type: Content-Encoding "${named}" is not accepted; send the body unencoded (Accept-Encoding: ${ACCEPTED})`,
    { acceptEncoding: [ACCEPTED] },
    415,
    { "Accept-Encoding": ACCEPTED },
  );
}
