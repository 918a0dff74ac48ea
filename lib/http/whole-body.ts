/**
 * Responses whose body exists whole when they are built (every JSON answer). A host that writes
 * to a node socket itself (lib/http/node-adapter.ts) sends these bytes in one write with their
 * length instead of draining the web stream Response wraps them in: on Node 20 that read costs
 * more than the core's own work for a small tools/call. Next and other web hosts read the
 * Response as usual; this changes nothing for them.
 */
const bodies = new WeakMap<Response, string | Uint8Array>();

/**
 * `sideOnly`: the host reads the body from here alone (HandleInit.wholeBodies), so the Response
 * gets none of its own: wrapping a string in a body stream is most of what building it costs.
 */
export function wholeBodyResponse(body: string | Uint8Array<ArrayBuffer>, init: ResponseInit, sideOnly = false): Response {
  const response = new Response(sideOnly ? null : body, init);
  bodies.set(response, body);
  return response;
}

/** The body `response` was built with, if it was built whole and nobody has read it since. */
export function wholeBodyOf(response: Response): string | Uint8Array | undefined {
  return response.bodyUsed ? undefined : bodies.get(response);
}
