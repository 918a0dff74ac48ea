/**
 * What an Accept header allows of the two media types the transport can answer with.
 * A missing header means "anything" (RFC 9110 §12.5.1). q=0 excludes a type.
 */
export interface Acceptable {
  json: boolean;
  eventStream: boolean;
}

let last: { header: string; result: Acceptable } | undefined;

/** Clients send the same Accept on every request: remember the last answer (results are frozen). */
export function parseAccept(header: string | null): Acceptable {
  if (header !== null && header === last?.header) return last.result;
  const result = Object.freeze(parseAcceptUncached(header));
  if (header !== null) last = { header, result };
  return result;
}

function parseAcceptUncached(header: string | null): Acceptable {
  if (header === null || header.trim() === "") return { json: true, eventStream: true };
  let json = false;
  let eventStream = false;
  for (const part of header.split(",")) {
    const [rawType, ...params] = part.split(";");
    const type = (rawType ?? "").trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (type === "*/*") {
      json = true;
      eventStream = true;
    } else if (type === "application/*" || type === "application/json") json = true;
    else if (type === "text/*" || type === "text/event-stream") eventStream = true;
  }
  return { json, eventStream };
}

let lastJsonType: string | undefined;

/** True when a Content-Type header names application/json (parameters such as charset allowed). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  // Clients send the same Content-Type on every request: the last one that passed is remembered.
  if (header === lastJsonType) return true;
  const type = header.split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "application/json") return false;
  lastJsonType = header;
  return true;
}
