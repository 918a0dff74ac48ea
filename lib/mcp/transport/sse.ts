/**
 * Server-Sent Events framing (WHATWG HTML §9.2). Data is JSON on one line, so no line splitting
 * is needed; event ids let a client resume with Last-Event-ID (basic/transports §resumability).
 */
const encoder = new TextEncoder();

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

export function formatSseEvent({ id, event, data, retry }: SseEvent): string {
  let out = "";
  if (id !== undefined) out += `id: ${id}\n`;
  if (event !== undefined) out += `event: ${event}\n`;
  if (retry !== undefined) out += `retry: ${retry}\n`;
  return `${out}data: ${data}\n\n`;
}

export function encodeSse(event: SseEvent): Uint8Array {
  return encoder.encode(formatSseEvent(event));
}

/** A comment line: ignored by clients, keeps proxies from timing the connection out. */
export function encodeSseComment(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n\n`);
}

/**
 * A whole answer as a one-event SSE stream, for a client whose Accept refuses JSON but allows
 * SSE (RFC 9110 §12.5.1; basic/transports §sending messages: the server answers a POST's request
 * with application/json or text/event-stream). No id: there is nothing left to resume.
 */
export function sseAnswer(message: string, status: number, headers: Headers): Response {
  for (const [name, value] of Object.entries(SSE_HEADERS)) headers.set(name, value);
  return new Response(formatSseEvent({ data: message }), { status, headers });
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // Nginx and some proxies buffer responses unless told not to; SSE must flush per event.
  "x-accel-buffering": "no",
};
