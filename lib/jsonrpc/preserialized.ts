/** Results whose JSON is computed once (list pages): the envelope splices it in verbatim. */
const texts = new WeakMap<object, string>();
const encoded = new WeakMap<object, Uint8Array>();
const blobs = new WeakMap<object, Blob>();
const utf8 = new TextEncoder();

export function preserialize<T extends object>(result: T): T {
  texts.set(result, JSON.stringify(result));
  return Object.freeze(result);
}

export function serializedOf(result: object): string | undefined {
  return texts.get(result);
}

/**
 * The UTF-8 bytes of a preserialized result, encoded once. A response body built from bytes
 * skips what a string body costs the web Response on every request (a USVString scan and a UTF-8
 * encoding of the whole page: measured ~10 % of a tools/list's CPU for a 20 KB catalogue).
 */
export function serializedBytesOf(result: object): Uint8Array | undefined {
  let bytes = encoded.get(result);
  if (!bytes) {
    const text = texts.get(result);
    if (text === undefined) return undefined;
    bytes = utf8.encode(text);
    encoded.set(result, bytes);
  }
  return bytes;
}

/** `{"jsonrpc":"2.0","id":<id>,"result":<bytes>}` as one buffer: the id is the only per-request part. */
export function envelopeBytes(id: unknown, result: Uint8Array): Uint8Array {
  const head = utf8.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const body = new Uint8Array(head.length + result.length + 1);
  body.set(head, 0);
  body.set(result, head.length);
  body[body.length - 1] = 0x7d; // }
  return body;
}

/**
 * The page as a Blob, made once. A Blob built with it as a part shares its bytes: the web
 * Response of a tools/list page then holds no per-request copy of the page, where a byte body is
 * copied twice per request (the envelope, then the Response's own copy). Under Next each of those
 * 20–60 KB buffers is external memory, and their rate is what set off the full collections that
 * made tools/list cost twice its floor (bench/PROFILING.md, round 10).
 */
export function serializedBlobOf(result: object): Blob | undefined {
  let blob = blobs.get(result);
  if (!blob) {
    const bytes = serializedBytesOf(result);
    if (bytes === undefined) return undefined;
    blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
    blobs.set(result, blob);
  }
  return blob;
}

/** The same envelope as `envelopeBytes`, as a Blob around the shared page. */
export function envelopeBlob(id: unknown, result: Blob): Blob {
  return new Blob([`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, result, "}"]);
}
