/**
 * What a host may hand over with a Request besides the Request itself (lib/http/node-adapter.ts
 * gives all three). Each one lets the host skip a web-stream or signal step that, on Node 20,
 * costs more than the core's own work for a small call. Next hands over nothing: its requests
 * carry their body, their signal, and it reads answers as web Responses.
 */
export interface HandleInit {
  /**
   * The request body as text, when the host has read it already (an Express body parser set to
   * text, the node adapter). The Request's own body is then not read. The size limit still applies.
   */
  body?: string;
  /**
   * Aborts when the client goes away; used instead of `request.signal`. A Request built to follow
   * a signal costs about as much again as one built without.
   */
  signal?: AbortSignal;
  /**
   * The host writes every JSON answer from `wholeBodyOf(response)` (lib/http/whole-body.ts), so
   * those Responses are built without a body stream of their own (`response.body` is null).
   */
  wholeBodies?: boolean;
}

const NOTHING: HandleInit = Object.freeze({});

/**
 * The init a host really gave, checked field by field: frameworks also call a route's exports
 * with arguments of their own (Next passes `{ params }`), and those must mean nothing here.
 */
export function handleInitOf(init: unknown): HandleInit {
  if (typeof init !== "object" || init === null) return NOTHING;
  const { body, signal, wholeBodies } = init as Record<string, unknown>;
  if (body === undefined && signal === undefined && wholeBodies === undefined) return NOTHING;
  return {
    ...(typeof body === "string" ? { body } : {}),
    ...(signal instanceof AbortSignal ? { signal } : {}),
    ...(wholeBodies === true ? { wholeBodies } : {}),
  };
}
