/**
 * What an Accept header allows of the two media types the transport can answer with.
 * A missing header means "anything" (RFC 9110 §12.5.1). q=0 excludes a type, whatever a less
 * specific range (a wildcard) says.
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

/**
 * RFC 9110 §12.5.1: "Media ranges can be overridden by more specific media ranges or specific
 * media types", and a type's weight is that of the most specific range that matches it. So
 * `application/json;q=0` refuses JSON even beside a full wildcard that allows everything else.
 * Specificity per type: 0 the full wildcard, 1 `type/` + `*`, 2 the type itself (unmatched: -1).
 */
function parseAcceptUncached(header: string | null): Acceptable {
  if (header === null || header.trim() === "") return { json: true, eventStream: true };
  const json = new Weight();
  const eventStream = new Weight();
  for (const part of header.split(",")) {
    const [rawType, ...params] = part.split(";");
    const type = (rawType ?? "").trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    // A weight that does not parse counts as 1, as an absent one does.
    const weight = q === undefined || Number.isNaN(Number(q.slice(2))) ? 1 : Number(q.slice(2));
    if (type === "*/*") {
      json.offer(0, weight);
      eventStream.offer(0, weight);
    } else if (type === "application/*") json.offer(1, weight);
    else if (type === "application/json") json.offer(2, weight);
    else if (type === "text/*") eventStream.offer(1, weight);
    else if (type === "text/event-stream") eventStream.offer(2, weight);
  }
  return { json: json.accepted(), eventStream: eventStream.accepted() };
}

/** The weight of one media type: that of its most specific matching range (the highest, among equals). */
class Weight {
  private specificity = -1;
  private q = 0;

  offer(specificity: number, q: number): void {
    if (specificity > this.specificity) {
      this.specificity = specificity;
      this.q = q;
    } else if (specificity === this.specificity) this.q = Math.max(this.q, q);
  }

  accepted(): boolean {
    return this.q > 0;
  }
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
