import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";

/**
 * A stand-in for Upstash's Redis REST API on 127.0.0.1, in front of a real Redis, so the server's
 * @upstash/redis code path (UPSTASH_REDIS_REST_URL/TOKEN) can be tested without the internet.
 * It implements the part of the protocol @upstash/redis 1.39 speaks (see its pkg/http.ts and
 * pkg/pipeline.ts):
 *
 * - every request is a POST with `Authorization: Bearer <token>` (401 otherwise);
 * - `POST /` with one command as a JSON array (`["EVALSHA", sha, 2, k1, k2, a1, …]`) answers
 *   `{"result": …}`, or HTTP 400 `{"error": "…"}` when Redis refuses the command;
 * - `POST /pipeline` with an array of commands (the client's auto-pipelining, on by default)
 *   answers HTTP 200 with one `{"result"}` or `{"error"}` per command, in order;
 * - `POST /multi-exec` with an array of commands (`redis.multi()…exec()`) runs them as one
 *   MULTI/EXEC transaction and answers like /pipeline; a transaction Redis refuses as a whole
 *   (EXECABORT: a command it could not queue) is HTTP 400 `{"error": "…"}`;
 * - with `Upstash-Encoding: base64` every string in a result is base64 (the plain status "OK"
 *   excepted, which the client special-cases), numbers and nulls stay as they are;
 * - `POST /subscribe/<channel>` (`redis.subscribe(channel)`, pkg/commands/subscribe.ts; the body is
 *   `[]`, the request asks for `Accept: text/event-stream`) holds the response open as an event
 *   stream over a Redis connection of its own: first `data: subscribe,<channel>,<count>` once Redis
 *   has confirmed the subscription, then `data: message,<channel>,<payload>` per message published
 *   to the channel. The client (pkg/http.ts) reads the body line by line, takes each line that
 *   starts with `data: `, and splits it at the first two commas: the payload is everything after
 *   the second, as published — plain text, never base64, whatever Upstash-Encoding says (the
 *   client decodes base64 only in JSON answers). A payload with a line break cannot be carried by
 *   that parser; the front sends it as SSE would (one `data:` line per line) and counts it.
 *   Closing the request (the client's unsubscribe aborts its fetch) closes the Redis connection.
 *
 * One Upstash behaviour is emulated on purpose: Upstash accepts the `#!lua flags=allow-key-locking`
 * shebang @upstash/ratelimit 2.x puts on its scripts; stock Redis 7.0 refuses that flag. The front
 * removes it before Redis sees the script and maps the client's SHA-1 (of the text it sent) to the
 * SHA-1 of what Redis holds, so EVALSHA with the client's hash works after an EVAL, and an unknown
 * hash gets Redis's own NOSCRIPT error (the client then falls back to EVAL, as with real Upstash).
 */
export interface UpstashRestFront {
  /** http://127.0.0.1:<port>: UPSTASH_REDIS_REST_URL */
  url: string;
  /** UPSTASH_REDIS_REST_TOKEN */
  token: string;
  /** Every command received (name lower-cased, then its arguments as text), in arrival order. */
  readonly commands: readonly string[][];
  /** Requests that asked for base64 results (Upstash-Encoding: base64). */
  readonly base64Requests: number;
  /** Requests refused for a missing or wrong bearer token. */
  readonly unauthorized: number;
  /** Every POST /multi-exec, as its commands (each also in `commands`), in arrival order. */
  readonly transactions: readonly (readonly string[][])[];
  /** The channel of every subscription opened (POST /subscribe/<channel>), in arrival order. */
  readonly subscriptions: readonly string[];
  /** Subscription streams open now. */
  readonly openSubscriptions: number;
  /** Every message sent down a subscription stream (once per stream it went to), in order. */
  readonly deliveries: readonly { channel: string; message: string }[];
  /** Messages that held a line break (the client cannot parse those; see above). */
  readonly multilineMessages: number;
  close(): Promise<void>;
}

type Arg = string | number | boolean;
type RedisValue = string | number | null | Buffer | Error | RedisValue[];

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** Drops `allow-key-locking` from a script's shebang (and the shebang, if nothing else is left). */
function forStockRedis(script: string): string {
  const shebang = /^#!lua([^\n]*)\n/.exec(script);
  if (!shebang) return script;
  const flags = /flags=(\S*)/.exec(shebang[1] ?? "")?.[1]?.split(",").filter((f) => f && f !== "allow-key-locking") ?? [];
  const rest = script.slice(shebang[0].length);
  return flags.length > 0 ? `#!lua flags=${flags.join(",")}\n${rest}` : rest;
}

function encodeResult(value: RedisValue, base64: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => encodeResult(v, base64));
  if (value instanceof Error) return value.message;
  if (Buffer.isBuffer(value)) return base64 ? value.toString("base64") : value.toString("utf8");
  if (typeof value === "string") return base64 && value !== "OK" ? Buffer.from(value, "utf8").toString("base64") : value;
  return value;
}

function isCommand(value: unknown): value is Arg[] {
  return Array.isArray(value) && value.length > 0 && value.every((a) => typeof a === "string" || typeof a === "number" || typeof a === "boolean");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

export async function startUpstashRestFront({ redisUrl, token }: { redisUrl: string; token: string }): Promise<UpstashRestFront> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  const commands: string[][] = [];
  /** The client's script hash → the hash of the script Redis was given. */
  const scripts = new Map<string, string>();
  let base64Requests = 0;
  let unauthorized = 0;

  const transactions: string[][][] = [];
  const subscriptions: string[] = [];
  const deliveries: { channel: string; message: string }[] = [];
  let multilineMessages = 0;
  /** The Redis connections of the open subscription streams. */
  const subscribers = new Set<Redis>();

  /** A command as received (recorded), made ready for stock Redis: its name and arguments. */
  function prepare(command: Arg[]): [string, string[]] {
    const [name, ...rest] = command.map(String) as [string, ...string[]];
    const lower = name.toLowerCase();
    commands.push([lower, ...rest]);
    let args = rest;
    if (lower === "eval" && args[0] !== undefined) {
      const stock = forStockRedis(args[0]);
      scripts.set(sha1(args[0]), sha1(stock));
      args = [stock, ...args.slice(1)];
    } else if ((lower === "evalsha" || lower === "evalsha_ro") && args[0] !== undefined) {
      args = [scripts.get(args[0]) ?? args[0], ...args.slice(1)];
    }
    return [lower, args];
  }

  const errorText = (thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown));

  /** One command against Redis: its result, or the error text Redis answered with. */
  async function run(command: Arg[]): Promise<{ result: RedisValue } | { error: string }> {
    const [name, args] = prepare(command);
    try {
      return { result: (await redis.call(name, ...args)) as RedisValue };
    } catch (thrown) {
      return { error: errorText(thrown) };
    }
  }

  /**
   * Commands as one MULTI/EXEC: each command's result or error (a command failing at run time,
   * WRONGTYPE say, does not undo the others, as in Redis), or one error for the whole
   * transaction when Redis discarded it (EXECABORT).
   */
  async function transaction(body: Arg[][]): Promise<({ result: RedisValue } | { error: string })[] | { error: string }> {
    transactions.push(body.map((command) => command.map(String)));
    const tx = redis.multi();
    for (const command of body) {
      const [name, args] = prepare(command);
      void tx.call(name, ...args);
    }
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await tx.exec();
    } catch (thrown) {
      return { error: errorText(thrown) };
    }
    if (!replies) return { error: "EXECABORT Transaction discarded" };
    return replies.map(([error, result]) => (error ? { error: error.message } : { result: result as RedisValue }));
  }

  /** POST /subscribe/<channel>: an event stream of the channel's messages until the client leaves. */
  async function subscribe(channel: string, res: ServerResponse): Promise<void> {
    const subscriber = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    subscriber.on("error", () => undefined);
    subscribers.add(subscriber);
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      subscribers.delete(subscriber);
      subscriber.disconnect();
    };
    // The client went away (its unsubscribe aborts the fetch), or the front is closing.
    res.once("close", end);
    const write = (type: string, rest: string) => {
      if (!open) return;
      res.write(`${rest.split("\n").map((line, i) => `data: ${i === 0 ? `${type},${channel},${line}` : line}`).join("\n")}\n\n`);
    };
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel || !open) return;
      deliveries.push({ channel, message });
      if (message.includes("\n")) multilineMessages += 1;
      write("message", message);
    });
    let count: number;
    try {
      await subscriber.connect();
      count = Number(await subscriber.subscribe(channel));
    } catch (thrown) {
      end();
      if (!res.headersSent) send(res, 500, { error: errorText(thrown) });
      return;
    }
    if (!open) return; // the client left while Redis was subscribing
    subscriptions.push(channel);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    write("subscribe", String(count));
  }

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== `Bearer ${token}`) {
        unauthorized += 1;
        return send(res, 401, { error: "Unauthorized" });
      }
      if (req.method !== "POST") return send(res, 405, { error: "Method not allowed" });
      const base64 = req.headers["upstash-encoding"] === "base64";
      if (base64) base64Requests += 1;
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname.replace(/\/+$/, "");
      if (path.startsWith("/subscribe/")) {
        await readBody(req); // `[]`: the channel is in the path
        const channel = decodeURIComponent(path.slice("/subscribe/".length));
        commands.push(["subscribe", channel]);
        return subscribe(channel, res);
      }
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(res, 400, { error: "ERR failed to parse command" });
      }
      if (path === "") {
        if (!isCommand(body)) return send(res, 400, { error: "ERR failed to parse command" });
        const answer = await run(body);
        if ("error" in answer) return send(res, 400, answer);
        return send(res, 200, { result: encodeResult(answer.result, base64) });
      }
      if (path === "/pipeline") {
        if (!Array.isArray(body) || !body.every(isCommand)) return send(res, 400, { error: "ERR failed to parse pipeline request" });
        const answers: unknown[] = [];
        // In order, one after another, as a pipeline runs on Redis.
        for (const command of body) {
          const answer = await run(command);
          answers.push("error" in answer ? answer : { result: encodeResult(answer.result, base64) });
        }
        return send(res, 200, answers);
      }
      if (path === "/multi-exec") {
        if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand)) return send(res, 400, { error: "ERR failed to parse transaction request" });
        const answers = await transaction(body);
        if (!Array.isArray(answers)) return send(res, 400, answers);
        return send(res, 200, answers.map((answer) => ("error" in answer ? answer : { result: encodeResult(answer.result, base64) })));
      }
      return send(res, 404, { error: `ERR ${path} is not part of this stand-in` });
    })().catch((thrown: unknown) => {
      if (!res.headersSent) send(res, 500, { error: thrown instanceof Error ? thrown.message : String(thrown) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    get base64Requests() {
      return base64Requests;
    },
    get unauthorized() {
      return unauthorized;
    },
    transactions,
    subscriptions,
    get openSubscriptions() {
      return subscribers.size;
    },
    deliveries,
    get multilineMessages() {
      return multilineMessages;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const subscriber of subscribers) subscriber.disconnect();
      subscribers.clear();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
