/**
 * Soak: mixed traffic at a fixed rate for SOAK_SECONDS (120 in CI) against two instances on one
 * PostgreSQL and one Redis behind a round-robin proxy, with rate limits on (in Redis). Several
 * subjects stay within their budgets; one "noisy" subject goes over its tools/call budget on
 * purpose. Afterwards: no error of any kind except that subject's 429s (and it did get some), and
 * every create_world the server acknowledged exists exactly once in the database.
 *
 * Meanwhile a "flooder" subject sends initialize as fast as FLOOD_RATE allows (issue 19): it meets
 * its initialize budget (429) and its per-caller session cap (its own oldest sessions end), and no
 * other subject's session is ever evicted — a 404 on a quiet subject's session is an error.
 *
 * Durable tasks ride along (issue 21): a tenth of the mix is export_world as a task
 * (io.modelcontextprotocol/tasks), started through the proxy on whichever instance; afterwards every
 * acknowledged task reads completed, its row is completed in the database, and the audit log holds
 * exactly one ending per task (the run's one terminal write).
 *
 * Open loop: requests start on schedule whether or not earlier ones have finished (bounded by
 * MAX_IN_FLIGHT), as real traffic does; every request has a deadline, so a hang is an error.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";
import { V2025, V2026, isRecord, type Json } from "../support/raw-sessions";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const RATE = Number(process.env.SOAK_RATE ?? 40); // requests per second, all subjects together
const MAX_IN_FLIGHT = 64;
const DEADLINE_MS = 15_000;
const QUIET_SUBJECTS = 6;
const WINDOW_S = 10;
const CALL_BUDGET = 60; // tools/call per subject per window; quiet subjects use about a third
const FLOOD_RATE = 20; // initialize per second from one subject
const INITIALIZE_BUDGET = 100; // per window: the flood goes over it
const SESSIONS_PER_CALLER = 5;

let cluster: TwoInstances;
const RUN = randomUUID().slice(0, 8);

beforeAll(async () => {
  cluster = await startTwoInstances({
    prefix: "wc_soak",
    env: {
      MCP_RATE_LIMITS: "1",
      MCP_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S),
      MCP_RATE_LIMIT_TOOLS_CALL: String(CALL_BUDGET),
      MCP_RATE_LIMIT_TOOLS_LIST: String(CALL_BUDGET),
      MCP_RATE_LIMIT_OTHER: "1000",
      MCP_RATE_LIMIT_FAILURE: "closed",
      MCP_MAX_STREAMS_PER_CALLER: "20",
      MCP_RATE_LIMIT_INITIALIZE: String(INITIALIZE_BUDGET),
      MCP_MAX_SESSIONS_PER_CALLER: String(SESSIONS_PER_CALLER),
    },
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
}, 60_000);

interface Subject {
  name: string;
  token: string;
  noisy: boolean;
  /** A 2025-11-25 session through the proxy (its requests alternate instances). */
  session?: Record<string, string>;
  worlds: string[];
}

interface Tally {
  sent: number;
  ok: number;
  intended429: number;
  errors: string[];
  acknowledged: { id: string; name: string }[];
  /** Task-augmented export_world calls the server answered with a CreateTaskResult. */
  tasks: { subject: Subject; taskId: string }[];
  /** 2025 requests of a subject other than the flooder answered 404: its session was evicted. */
  foreignEvictions: number;
  /** Every request's start (ms into the run), duration and what it was, to show where time went. */
  timings: { at: number; ms: number; what: string }[];
  t0: number;
}

interface FloodTally {
  sessions: string[];
  limited: number;
  errors: string[];
}

/** One initialize of the flooder: a new session (200) or its budget spent (429); anything else is an error. */
async function floodOnce(token: string, flood: FloodTally): Promise<void> {
  try {
    const r = await fetch(cluster.resourceUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: "flood", version: "1" } } }),
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    await r.text();
    const id = r.headers.get("mcp-session-id");
    if (r.status === 200 && id) flood.sessions.push(id);
    else if (r.status === 429) flood.limited += 1;
    else flood.errors.push(`flood initialize: HTTP ${r.status}`);
  } catch (error) {
    flood.errors.push(`flood initialize: ${String(error)}`);
  }
}

const TASKS = "io.modelcontextprotocol/tasks";
const meta2026 = { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} };

/** The JSON-RPC response in a JSON or SSE body. */
function responseOf(text: string, contentType: string): Json | undefined {
  if (!contentType.includes("event-stream")) return text ? (JSON.parse(text) as Json) : undefined;
  const datas = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).filter(Boolean);
  for (const d of datas.reverse()) {
    const m = JSON.parse(d) as Json;
    if ("result" in m || "error" in m) return m;
  }
  return undefined;
}

async function rpc(subject: Subject, era: "2025" | "2026", method: string, params: Json): Promise<{ status: number; message: Json | undefined }> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${subject.token}` };
  let body: Json = { jsonrpc: "2.0", id: 1, method, params };
  if (era === "2026") {
    const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
    Object.assign(headers, { "mcp-protocol-version": V2026, "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": String(name) }) });
    body = { ...body, params: { ...params, _meta: { ...meta2026, ...(isRecord(params._meta) ? params._meta : {}) } } };
  } else {
    Object.assign(headers, subject.session);
  }
  const r = await fetch(cluster.resourceUrl, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(DEADLINE_MS) });
  const text = await r.text();
  return { status: r.status, message: responseOf(text, r.headers.get("content-type") ?? "") };
}

async function openSession(subject: Subject): Promise<void> {
  const r = await fetch(cluster.resourceUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${subject.token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: "soak", version: "1" } } }),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  await r.text();
  const id = r.headers.get("mcp-session-id");
  if (!id) throw new Error(`initialize gave no session (HTTP ${r.status})`);
  subject.session = { "mcp-session-id": id, "mcp-protocol-version": V2025 };
  const ready = await fetch(cluster.resourceUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${subject.token}`, ...subject.session },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await ready.text();
}

/** One request of the mix, chosen by `n`; its outcome goes into the tally. */
async function one(subject: Subject, n: number, tally: Tally): Promise<void> {
  const era = n % 2 === 0 ? "2025" : "2026";
  const kind = n % 10;
  let method = "tools/call";
  let params: Json;
  let worldName: string | undefined;
  if (kind === 0 || kind === 5) {
    worldName = `Soak ${RUN} ${subject.name} ${n}`;
    params = { name: "create_world", arguments: { name: worldName, theme: "soak" } };
  } else if ((kind === 1 || kind === 6) && subject.worlds.length) {
    params = { name: "get_world", arguments: { worldId: subject.worlds[n % subject.worlds.length] } };
  } else if (kind === 2) {
    params = { name: "list_worlds", arguments: { limit: 5 } };
  } else if (kind === 3) {
    method = "tools/list";
    params = {};
  } else if (kind === 9 && subject.worlds.length) {
    // 2026-07-28 (n is odd): a task, as a client that negotiated the tasks extension starts one.
    params = { name: "export_world", arguments: { worldId: subject.worlds[n % subject.worlds.length] }, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } };
  } else if (kind === 7) {
    // Streamed: 10 progress notifications, then the result.
    params = { name: "draft_world_outline", arguments: { name: `Outline ${n}` }, _meta: { progressToken: `p-${n}` } };
  } else {
    params = { name: "suggest_names", arguments: { style: "nordic", count: 3 } };
  }
  tally.sent += 1;
  const t0 = performance.now();
  const what = `${era} ${method === "tools/call" ? String(params.name) : method}`;
  try {
    const { status, message } = await rpc(subject, era, method, params).finally(() =>
      tally.timings.push({ at: t0 - tally.t0, ms: performance.now() - t0, what }),
    );
    if (status === 429 && subject.noisy) {
      tally.intended429 += 1;
      return;
    }
    if (status === 404 && era === "2025") tally.foreignEvictions += 1;
    if (status !== 200 || !message || "error" in message) {
      tally.errors.push(`${subject.name} ${era} ${method} ${String(params.name ?? "")}: HTTP ${status} ${JSON.stringify(message).slice(0, 200)}`);
      return;
    }
    const result = message.result as Json;
    if (params.name === "export_world") {
      if (result.resultType !== "task" || typeof result.taskId !== "string") tally.errors.push(`export_world task: ${JSON.stringify(result).slice(0, 200)}`);
      else tally.tasks.push({ subject, taskId: result.taskId });
      tally.ok += 1;
      return;
    }
    if (result.isError) {
      tally.errors.push(`${subject.name} ${era} ${String(params.name)}: isError ${JSON.stringify(result.content).slice(0, 200)}`);
      return;
    }
    tally.ok += 1;
    if (worldName) {
      const world = (result.structuredContent as { world?: { id?: string } } | undefined)?.world;
      if (!world?.id) tally.errors.push(`create_world acknowledged without an id: ${JSON.stringify(result).slice(0, 200)}`);
      else {
        tally.acknowledged.push({ id: world.id, name: worldName });
        subject.worlds.push(world.id);
      }
    }
  } catch (error) {
    tally.errors.push(`${subject.name} ${era} ${method}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`);
  }
}

/** Latency percentiles of the mix, and its slowest requests with when they started. */
function latencySummary(timings: Tally["timings"]): string {
  const sorted = [...timings].sort((a, b) => a.ms - b.ms);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.ms.toFixed(0) ?? "-";
  const slowest = sorted.slice(-5).reverse().map((t) => `${t.what} ${t.ms.toFixed(0)} ms at ${(t.at / 1000).toFixed(1)} s`);
  return `latency p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms (slowest: ${slowest.join("; ")})`;
}

describe("soak", () => {
  it(`holds ${RATE} req/s of mixed traffic for ${SECONDS} s on two instances: only the intended 429s, every acknowledged write exactly once`, async () => {
    const subjects: Subject[] = [];
    for (let i = 0; i <= QUIET_SUBJECTS; i++) {
      const name = i === QUIET_SUBJECTS ? `noisy-${RUN}` : `quiet${i}-${RUN}`;
      subjects.push({ name, token: await cluster.tokenFor(`soak-${name}`), noisy: i === QUIET_SUBJECTS, worlds: [] });
    }
    for (const s of subjects) await openSession(s);
    // Warm both instances on every kind of the mix first (their first database query, first task,
    // first stream): the soak is about steady load, and a cold instance's first second would pile
    // the open loop's requests up against MAX_IN_FLIGHT. Its subject is not a soak-* one, so its
    // tasks stay out of the audit count below; an error here is still an error.
    const warm: Subject = { name: `warm-${RUN}`, token: await cluster.tokenFor(`warm-${RUN}`), noisy: false, worlds: [] };
    await openSession(warm);
    const warmTally: Tally = { sent: 0, ok: 0, intended429: 0, errors: [], acknowledged: [], tasks: [], foreignEvictions: 0, timings: [], t0: performance.now() };
    for (let i = 0; i < 40; i++) await one(warm, i, warmTally);
    expect(warmTally.errors).toEqual([]);
    console.log(`soak: warm-up ${latencySummary(warmTally.timings)}`);
    const noisy = subjects[QUIET_SUBJECTS]!;
    const quiet = subjects.slice(0, QUIET_SUBJECTS);

    const tally: Tally = { sent: 0, ok: 0, intended429: 0, errors: [], acknowledged: [], tasks: [], foreignEvictions: 0, timings: [], t0: performance.now() };
    const flooder = await cluster.tokenFor(`soak-flooder-${RUN}`);
    const flood: FloodTally = { sessions: [], limited: 0, errors: [] };
    const flooding = new Set<Promise<void>>();
    let floods = 0;
    const inFlight = new Set<Promise<void>>();
    const started = Date.now();
    let n = 0;
    let skipped = 0;
    let peakInFlight = 0;
    // Half the rate is the noisy subject's (well over its budget), half spread over the quiet ones.
    while (Date.now() - started < SECONDS * 1000) {
      const due = Math.floor(((Date.now() - started) / 1000) * RATE);
      while (n < due) {
        const subject = n % 2 === 0 ? noisy : quiet[(n >> 1) % quiet.length]!;
        if (inFlight.size >= MAX_IN_FLIGHT) {
          skipped += 1;
          n += 1;
          continue;
        }
        const p = one(subject, n, tally).finally(() => inFlight.delete(p));
        inFlight.add(p);
        peakInFlight = Math.max(peakInFlight, inFlight.size);
        n += 1;
      }
      // The initialize flood, on a schedule of its own beside the mix.
      while (floods < Math.floor(((Date.now() - started) / 1000) * FLOOD_RATE)) {
        const p = floodOnce(flooder, flood).finally(() => flooding.delete(p));
        flooding.add(p);
        floods += 1;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all([...inFlight, ...flooding]);
    const elapsed = (Date.now() - started) / 1000;
    console.log(
      `soak: ${tally.sent} requests in ${elapsed.toFixed(0)} s (${(tally.sent / elapsed).toFixed(1)}/s), ${tally.ok} ok, ${tally.intended429} intended 429s, ${tally.errors.length} errors, ${skipped} not sent (in-flight cap), ${tally.acknowledged.length} worlds acknowledged, ${tally.tasks.length} export_world tasks; proxy served ${cluster.proxy.served.join(" / ")} (sent again after a reused connection's reset: ${cluster.proxy.retried.join(" / ")})`,
    );
    console.log(`soak: flood of ${floods} initialize: ${flood.sessions.length} sessions, ${flood.limited} refused (429), ${tally.foreignEvictions} foreign evictions`);
    console.log(`soak: ${latencySummary(tally.timings)}; peak in flight ${peakInFlight} of ${MAX_IN_FLIGHT}`);
    for (const e of [...tally.errors, ...flood.errors].slice(0, 10)) console.log(`soak error: ${e}`);
    expect(tally.foreignEvictions).toBe(0);
    expect(tally.errors).toEqual([]);
    expect(flood.errors).toEqual([]);
    expect(flood.limited).toBeGreaterThan(0);
    // The flooder's own oldest sessions made room; its newest are alive.
    const pingAs = (sessionId: string) =>
      fetch(cluster.resourceUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${flooder}`, "mcp-session-id": sessionId, "mcp-protocol-version": V2025 },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      }).then(async (r) => (await r.text(), r.status));
    expect(await pingAs(flood.sessions[0]!)).toBe(404);
    expect(await pingAs(flood.sessions.at(-1)!)).toBe(200);
    expect(skipped, `requests not sent because ${MAX_IN_FLIGHT} were in flight; ${latencySummary(tally.timings)}`).toBe(0);
    expect(tally.intended429).toBeGreaterThan(0);
    expect(tally.acknowledged.length).toBeGreaterThan(0);

    // Every task the server acknowledged ends completed, read through the proxy (either instance).
    expect(tally.tasks.length).toBeGreaterThan(0);
    const taskErrors: string[] = [];
    for (const { subject, taskId } of tally.tasks) {
      const deadline = Date.now() + DEADLINE_MS;
      for (;;) {
        const { message } = await rpc(subject, "2026", "tasks/get", { taskId, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } });
        const task = message?.result as Json | undefined;
        if (task && task.status !== "working") {
          if (task.status !== "completed" || (task.result as Json | undefined)?.isError) taskErrors.push(`${taskId}: ${JSON.stringify(task).slice(0, 200)}`);
          break;
        }
        if (!task || Date.now() > deadline) {
          taskErrors.push(`${taskId}: ${JSON.stringify(message).slice(0, 200)}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(taskErrors).toEqual([]);

    // Every acknowledged create_world is in the database exactly once (by id and by its unique name).
    const url = new URL(cluster.databaseUrl);
    const schema = url.searchParams.get("schema")!;
    url.search = "";
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; name: string }>(`SELECT id, name FROM "${schema}"."World" WHERE name LIKE $1`, [`Soak ${RUN} %`]);
      const byId = new Map<string, number>();
      const byName = new Map<string, number>();
      for (const row of rows) {
        byId.set(row.id, (byId.get(row.id) ?? 0) + 1);
        byName.set(row.name, (byName.get(row.name) ?? 0) + 1);
      }
      for (const { id, name } of tally.acknowledged) {
        expect(byId.get(id), id).toBe(1);
        expect(byName.get(name), name).toBe(1);
      }
      // Each task ended once: its row is completed, and the audit log has one export_world ending per task
      // (soak subjects call export_world only as tasks). The audit writes in batches: wait for it.
      const taskIds = tally.tasks.map((t) => t.taskId);
      const done = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."McpTask" WHERE id = ANY($1) AND status = 'completed'`, [taskIds]);
      expect(done.rows[0]!.n).toBe(taskIds.length);
      const audited = async () =>
        (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."ToolCallAudit" WHERE tool = 'export_world' AND subject LIKE $1`, [`soak-%${RUN}`])).rows[0]!.n;
      const auditDeadline = Date.now() + 10_000;
      while ((await audited()) < taskIds.length && Date.now() < auditDeadline) await new Promise((r) => setTimeout(r, 200));
      expect(await audited()).toBe(taskIds.length);
    } finally {
      await db.end();
    }
  }, (SECONDS + 120) * 1000);
});
