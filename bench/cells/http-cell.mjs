/** One timed cell: the closed loop against a server (or a direct query in a db worker), with its CPU. */
import http from "node:http";
import { closedLoop } from "../closed-loop.mjs";
import { CEILING_PATH } from "../config.mjs";
import { isOurs, serverKeyOf } from "../servers/catalog.mjs";
import { servers } from "../servers/lifecycle.mjs";
import { decodeAnswer, request } from "./client.mjs";
import { REDIS_LIMITER, runLimiterCell } from "./limiter-cell.mjs";
import { treeCpuMs } from "./proc.mjs";

/**
 * The headers a system's requests carry on `server`: its own, else a session of the right subject;
 * `extraHeaders` on top (a floor route's parameters, e.g. the world ceiling+statement reads).
 */
export function headersFor(system, server) {
  const identity = system.auth ? server.identities[system.auth === true ? "reader" : system.auth] : undefined;
  const base = system.headers ? (identity ? { ...system.headers, authorization: identity.bearer } : system.headers) : identity ? identity.session : server.session;
  return system.extraHeaders ? { ...base, ...system.extraHeaders } : base;
}

/**
 * One HTTP cell: the closed loop plus the CPU its server, this client and (if connected) Redis
 * spent, and a sample answer (format and size) for the report.
 */
export async function runHttpCell(system, concurrency, seconds, redis) {
  const server = servers.get(serverKeyOf(system));
  const headers = headersFor(system, server);
  // An MCP answer states the budget it was counted in, or nothing with limits off: proof that
  // each row ran with the limiter it is named after. (Only ours: other stacks have no limiter.)
  const budget = server.budgets?.[system.method] ?? server.budgets?.other;
  const limitHeader = budget === undefined ? undefined : String(budget);
  const checkLimit = system.method && isOurs(server.key);
  const expected = system.answer ?? "json";
  const agent = await primedAgent(concurrency, server);
  let nextId = 1;
  let sample;
  /** Checks one whole answer (parsed); returns what is wrong, or undefined. */
  const judge = (res, id) => {
    const answer = decodeAnswer(res);
    const wrongFormat = expected !== "any" && answer.format !== expected;
    // The response must answer this request (the ceiling's fixed body aside).
    const wrongId = system.method && answer.json?.id !== id;
    if (res.status !== 200 || wrongFormat || wrongId || !system.check(answer.json, { notifications: answer.notifications, headers: res.headers, id })) {
      return `HTTP ${res.status} (${answer.format}${wrongFormat ? `, expected ${expected}` : ""}): ${res.body.slice(0, 200)}`;
    }
    return undefined;
  };
  const later = deferredChecks(system, expected);
  const call = async () => {
    const id = nextId++;
    const res = await request(agent, server, system.path, system.body(id), headers);
    sample ??= { format: decodeAnswer(res).format, bytes: Buffer.byteLength(res.body) };
    if (checkLimit && res.headers["ratelimit-limit"] !== limitHeader) return `RateLimit-Limit ${res.headers["ratelimit-limit"] ?? "absent"}, expected ${limitHeader ?? "absent"}`;
    if (later?.keep(res, id)) return undefined;
    return judge(res, id);
  };
  const cpu0 = treeCpuMs(server.pid);
  const redis0 = redis ? await redis.cpuMs() : undefined;
  const client0 = process.cpuUsage();
  const startUs = monotonicUs();
  const cell = await closedLoop({ concurrency, seconds, call });
  const endUs = monotonicUs();
  const client = process.cpuUsage(client0);
  const serverMs = treeCpuMs(server.pid) - cpu0;
  // redis-server's CPU over the cell (the INFO round trip is outside the timed loop).
  const redisMs = redis ? (await redis.cpuMs()) - redis0 : NaN;
  agent.destroy();
  // The kept answers are judged now, outside the timing; a wrong one counts as an error as before.
  if (later) {
    for (const { res, id, count, wrong } of later.kept()) {
      const problem = wrong ? `the id member found is not the response's own: ${res.body.slice(0, 200)}` : judge(res, id);
      if (problem === undefined) continue;
      cell.ok -= count;
      cell.errors += count;
      cell.firstError ??= problem;
    }
  }
  return { ...cell, serverMs, redisMs, clientMs: (client.user + client.system) / 1000, sample, window: { startUs, endUs } };
}

/**
 * The monotonic clock in µs. A V8 .cpuprofile's startTime and sample times are on the same clock
 * (CLOCK_MONOTONIC on Linux), so the windows recorded with it cut a server's profile to one cell.
 */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Answers judged after the cell instead of during it. Parsing every answer inside the timed loop
 * put the load generator's JSON.parse on the critical path (a 20 KB tools/list costs the client
 * more than the ceiling's whole round trip at c=1), and on this machine the client shares the
 * server's two cores. Nothing is sampled: a JSON answer with status 200 is kept as its body with
 * this request's id cut out, identical bodies once with a count, and every distinct body is parsed
 * and checked after the cell exactly as the loop would have. Checks that read more than the body
 * (headers, SSE notifications) still run in the loop. Returns undefined when nothing can be kept.
 */
export function deferredChecks(system, expected) {
  if (expected !== "json" || system.check.length > 1) return undefined;
  const kept = new Map();
  return {
    /** true: kept for later (never judged in the loop); false: judge it now. */
    keep(res, id) {
      if (res.status !== 200 || !String(res.headers["content-type"] ?? "").startsWith("application/json")) return false;
      // The id must be this request's (the ceiling's fixed body aside): found as a whole member.
      const cut = system.method ? withoutId(res.body, id) : { at: -1, rest: res.body };
      if (cut === undefined) return false;
      // Where the id was cut is part of the key: bodies with one key differ only in that id.
      const key = `${cut.at}:${cut.rest}`;
      const seen = kept.get(key);
      if (seen) seen.count++;
      else kept.set(key, { res, id, at: cut.at, rest: cut.rest, count: 1 });
      return true;
    },
    /** Kept answers; `wrong` when the cut member is not the response's own id (a nested "id"). */
    *kept() {
      for (const entry of kept.values()) {
        const wrong = entry.at >= 0 && !isTopLevelId(entry.rest, entry.at);
        yield { ...entry, wrong };
      }
    },
  };
}

/** `body` with its first whole `"id":<id>` member cut out (and where it was), or undefined. */
export function withoutId(body, id) {
  const member = `"id":${id}`;
  for (let at = body.indexOf(member); at !== -1; at = body.indexOf(member, at + 1)) {
    const before = body[at - 1];
    const after = body[at + member.length];
    if ((before === "{" || before === ",") && (after === "," || after === "}")) return { at, rest: body.slice(0, at) + body.slice(at + member.length) };
  }
  return undefined;
}

/** Whether an id put back at `at` is the response's own id: then every body of this key answered its request. */
export function isTopLevelId(rest, at) {
  const probe = -987654321;
  try {
    return JSON.parse(`${rest.slice(0, at)}"id":${probe}${rest.slice(at)}`)?.id === probe;
  } catch {
    return false;
  }
}

/**
 * One direct cell, timed inside the database's worker. Its "server" CPU is the worker's (Prisma,
 * driver and, for PGlite, the database engine); there is no separate client to charge.
 */
export async function runDirectCell(system, databases, concurrency, seconds) {
  const { cpuMs, ...cell } = await databases.get(system.db).worker.call("run", { query: system.direct, concurrency, seconds });
  return { ...cell, serverMs: cpuMs, redisMs: NaN, clientMs: NaN };
}

export function runCell(system, { databases, redis }, concurrency, seconds) {
  if (system.direct === REDIS_LIMITER) return runLimiterCell(redis, concurrency, seconds);
  return system.direct ? runDirectCell(system, databases, concurrency, seconds) : runHttpCell(system, concurrency, seconds, redis);
}

/**
 * A keep-alive agent with `concurrency` sockets already connected to `server`, so no cell pays for
 * connects. Fresh for every cell: with two servers, a socket can sit idle for several cells, past
 * the server's keep-alive timeout, and reconnecting inside a timed cell showed up as p99 outliers.
 */
export async function primedAgent(concurrency, server) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  await Promise.all(Array.from({ length: concurrency }, () => request(agent, server, CEILING_PATH, "{}", server.session)));
  return agent;
}
