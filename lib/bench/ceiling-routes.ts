import { loadEnv } from "../config/env";
import { readBodyLimited } from "../http/read-body";
import { McpError } from "../jsonrpc";
import { rateLimitExceeded, type RateLimitDecision, type RequestLimiter } from "../mcp/policy/rate-limit";

/**
 * The benchmark's bare routes (bench/run.mjs): the framework's ceiling, with and without reading
 * the body, and floors that do after reading the body only what a request of one kind cannot
 * avoid: answer a recorded page's bytes, wait on one database statement, spend one rate-limit
 * budget. They exist only when MCP_BENCH_ROUTES=1 — otherwise indistinguishable from no route —
 * and read at most MCP_MAX_BODY_BYTES like /api/mcp, so a switched-on bench server is not an
 * unbounded buffer either.
 */
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });
const JSON_TYPE = { "content-type": "application/json" };

const notFound = (): Response => new Response("Not Found", { status: 404 });
const fixed = (): Response => new Response(BODY, { headers: JSON_TYPE });

/** An McpError (body too large, budget spent, limiter down) as its bare HTTP status; anything else is a bug and propagates. */
function refusal(error: unknown): Response {
  if (error instanceof McpError) return new Response(null, { status: error.httpStatus ?? 400, headers: error.headers });
  throw error;
}

/** POST /api/ceiling: a fixed answer, the request left unread. */
export function ceiling(): Response {
  return loadEnv().MCP_BENCH_ROUTES ? fixed() : notFound();
}

/** Reads the body within MCP_MAX_BODY_BYTES, then answers `answer()`; 404 unless switched on. */
async function afterBody(request: Request, answer: () => Response | Promise<Response>): Promise<Response> {
  const env = loadEnv();
  if (!env.MCP_BENCH_ROUTES) return notFound();
  try {
    await readBodyLimited(request, { maxBytes: env.MCP_MAX_BODY_BYTES, timeoutMs: env.MCP_BODY_TIMEOUT_MS });
  } catch (error) {
    return refusal(error);
  }
  return answer();
}

/** POST /api/ceiling/read-body: the same answer after reading the body within the limit. */
export function ceilingReadBody(request: Request): Promise<Response> {
  return afterBody(request, fixed);
}

/**
 * A floor for a bigger answer: after reading the body, the exact bytes and content type of the
 * answer `record()` gave once (recorded on first use, then replayed). For tools/list its ratio is
 * then like for like: the same answer size, none of the work that made it.
 */
export function ceilingReplay(record: () => Promise<Response>): (request: Request) => Promise<Response> {
  let recorded: Promise<{ bytes: ArrayBuffer; type: string }> | undefined;
  const replay = async (): Promise<Response> => {
    recorded ??= record().then(async (response) => ({ bytes: await response.arrayBuffer(), type: response.headers.get("content-type") ?? "application/json" }));
    const { bytes, type } = await recorded;
    return new Response(bytes, { headers: { "content-type": type } });
  };
  return (request) => afterBody(request, replay);
}

/**
 * A floor for a request that waits on one piece of I/O between reading its body and answering:
 * after the body, `load(request)` (the route says what: get_world's statement), answered as
 * `JSON.stringify` of its value; undefined = nothing there, 404. Timed alone, the load misses what
 * a real request pays around it — the wake-up when the answer comes, caches gone cold meanwhile —
 * so the bench measures this route rather than adding the two up.
 */
export function ceilingLoaded(load: (request: Request) => Promise<unknown>): (request: Request) => Promise<Response> {
  return (request) =>
    afterBody(request, async () => {
      const value = await load(request);
      return value === undefined ? notFound() : new Response(JSON.stringify(value), { headers: JSON_TYPE });
    });
}

/** The caller the limiter floor spends as: one fixed key, all its requests in one window as one client's are; no real caller's budget is touched. */
const FLOOR_CALLER = "bench:floor";

/**
 * A floor for a rate-limited request: after the body, one tools/call budget spent through
 * `limiterOf()` (the route builds the limiter the MCP endpoint would), then the fixed answer. A
 * refusal is answered as the endpoint answers it (429, or 503 when the store fails closed), so a
 * run that reaches its budget shows errors instead of a faster floor. The decision's RateLimit-*
 * headers are not written: a floor does the least. No limiter (MCP_RATE_LIMITS off) = 404: a floor
 * that spent nothing would be ceiling+body under another name, so it is not served at all.
 */
export function ceilingLimited(limiterOf: () => RequestLimiter | undefined): (request: Request) => Promise<Response> {
  const answer = (decision: RateLimitDecision | undefined): Response => (decision && !decision.allowed ? refusal(rateLimitExceeded(decision)) : fixed());
  return (request) =>
    afterBody(request, () => {
      const limiter = limiterOf();
      if (!limiter) return notFound();
      try {
        // As the endpoint spends (transport/stateless/serve.ts): no promise when the store answers at once (in memory).
        const checking = limiter.check({ method: "tools/call", caller: FLOOR_CALLER });
        return checking instanceof Promise ? checking.then(answer, refusal) : answer(checking);
      } catch (error) {
        return refusal(error);
      }
    });
}

/**
 * POST /api/ceiling/stream: the idle-streams floor. The body is read, then an SSE response that
 * never ends on its own, with a keep-alive comment every MCP_SSE_PING_MS — what any route handler
 * must hold per open stream, none of the MCP work around it. It ends when the client goes away.
 */
export function ceilingStream(request: Request): Promise<Response> {
  return afterBody(request, () => {
    const pingMs = loadEnv().MCP_SSE_PING_MS;
    const ping = new TextEncoder().encode(": ping\n\n");
    let timer: ReturnType<typeof setInterval> | undefined;
    const stop = () => clearInterval(timer);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(ping);
        if (pingMs > 0) {
          timer = setInterval(() => {
            try {
              controller.enqueue(ping);
            } catch {
              stop(); // the stream was closed under us: nothing left to keep alive
            }
          }, pingMs);
        }
        // The client went away. The framework may have cancelled the body already, and closing a
        // cancelled stream throws (an uncaught error in a listener): stopping the pings is enough.
        request.signal.addEventListener("abort", stop, { once: true });
      },
      cancel: stop,
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  });
}
