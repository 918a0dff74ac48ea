/**
 * Responses whose body exists whole when they are built (every JSON answer). A host that writes
 * to a node socket itself (lib/http/node-adapter.ts) sends these bytes in one write with their
 * length instead of draining the web stream Response wraps them in: on Node 20 that read costs
 * more than the core's own work for a small tools/call. Other web hosts (Next) read the Response's
 * body stream as usual.
 */
const bodies = new WeakMap<Response, string | Uint8Array>();
const utf8 = new TextEncoder();

/**
 * The body stream of a whole answer: a default stream holding its one chunk, already closed.
 * `new Response(string)` builds a byte stream around the encoded text instead, whose controller
 * and transfer steps cost several times as much to build and to read; a default stream hands its
 * chunk on by reference and never detaches it (bench/PROFILING.md, round 12).
 */
class WholeSource implements UnderlyingDefaultSource<Uint8Array> {
  constructor(private readonly bytes: Uint8Array) {}

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (this.bytes.byteLength > 0) controller.enqueue(this.bytes);
    controller.close();
  }
}

/**
 * `sideOnly`: the host reads the body from here alone (HandleInit.wholeBodies), so the Response
 * gets none of its own. Only those are kept in the side table: an entry per answer of a host that
 * reads the stream anyway (Next) would only give the collector a weak table to sweep.
 */
export function wholeBodyResponse(body: string | Uint8Array<ArrayBuffer>, init: ResponseInit, sideOnly = false): Response {
  if (!sideOnly) return new Response(new ReadableStream<Uint8Array>(new WholeSource(typeof body === "string" ? utf8.encode(body) : body)), init);
  const response = new Response(null, init);
  bodies.set(response, body);
  return response;
}

/** The body of an answer built `sideOnly`; undefined for any other (its body is its stream). */
export function wholeBodyOf(response: Response): string | Uint8Array | undefined {
  return response.bodyUsed ? undefined : bodies.get(response);
}
