/** Results whose JSON is computed once (list pages): the envelope splices it in verbatim. */
const texts = new WeakMap<object, string>();
const encoded = new WeakMap<object, Uint8Array>();
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
  const head = envelopeHead(id);
  const body = new Uint8Array(head.length + result.length + 1);
  body.set(head, 0);
  body.set(result, head.length);
  body[body.length - 1] = 0x7d; // }
  return body;
}

/**
 * `{"jsonrpc":"2.0","id":<id>,"result":<page>}` for a web Response, without copying the page: a
 * stream of three chunks, the middle one the page's shared bytes. A byte body is copied twice per
 * request (the envelope, then the Response's own copy), and under Next those 20–60 KB buffers
 * (external memory) set off full collections (bench/PROFILING.md, round 10); a Blob around the
 * page avoided the copies but its reads cost as much again (round 11). Default (not byte)
 * streams hand chunks on by reference and never detach them, so the page stays intact; the
 * shared bytes are never written to.
 */
export function envelopeStream(id: unknown, page: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(new EnvelopeSource(envelopeHead(id), page), { highWaterMark: 0 });
}

/** Everything of the envelope before the result: the only part that differs per request. */
function envelopeHead(id: unknown): Uint8Array {
  return utf8.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
}

const CLOSE_BRACE = Uint8Array.of(0x7d);

/** The three chunks of an envelope, one per pull (a class: no closures per response). */
class EnvelopeSource implements UnderlyingDefaultSource<Uint8Array> {
  private next = 0;

  constructor(
    private readonly head: Uint8Array,
    private readonly page: Uint8Array,
  ) {}

  pull(controller: ReadableStreamDefaultController<Uint8Array>): void {
    const part = this.next++;
    if (part === 0) controller.enqueue(this.head);
    else if (part === 1) controller.enqueue(this.page);
    else if (part === 2) controller.enqueue(CLOSE_BRACE);
    else controller.close();
  }
}
