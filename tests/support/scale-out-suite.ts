/**
 * What this suite proves: WorldCrafter runs as several instances of one deployment. Two
 * production servers (`next start`, built into NEXT_DIST_DIR or .next) share one PostgreSQL
 * schema and one Redis (REDIS_URL, or Upstash's REST API: see the backend each test file gives),
 * behind a round-robin proxy that is the deployment's public
 * URL (both instances' MCP_RESOURCE_URL; tokens name it as audience). Where the instance matters,
 * requests go to A or B directly; the official clients go through the proxy, which alternates.
 *
 * 1. A session initialized on A continues on B (notifications/initialized 202, tools/list,
 *    tools/call, data written on B read on A) and on A again (ping), with one Mcp-Session-Id.
 * 2. A GET stream held on A carries the seed's named events: `connected` {"status":"ready"}
 *    first, `ping` about every MCP_SSE_PING_MS, and for its subject's tool runs on B:
 *    tool-progress 10…100, tool-complete with the call's structuredContent, tool-error for an
 *    isError result.
 * 3. An elicitation asked by a handler running on A is answered by a POST that lands on B (202):
 *    the call on A finishes with the answer (the world is deleted).
 * 4. A POST stream dropped mid-call on A resumes on B with Last-Event-ID: over both connections
 *    every progress step 1…10 arrives exactly once, and exactly one result; so it does when the
 *    resume on B comes at once with the id just received. An id beyond the last its stream issued
 *    is 400 on A and on B (the session stays valid); the last real one (a named event's) resumes on B.
 *    A call whose client does not come back within MCP_RESUME_GRACE_MS is given up on A with an
 *    error response for its id, which a resume on B replays before the stream ends.
 * 5. DELETE on B ends the session on A: A's GET stream and its running call's stream end, the
 *    handler on A sees its signal fire ("session terminated"), and A answers the session 404.
 * 6. The official 1.x client (session, GET stream, progress, elicitation) and v2 client (2026-07-28,
 *    stateless) work through the proxy, with a bearer token.
 * 7. `npm run tools -- disable|enable <tool>` switches a tool on both instances: A's GET stream
 *    and a 2026-07-28 subscriptions/listen stream on B hear notifications/tools/list_changed, and
 *    tools/list on A and B follows.
 * 8. tools/batch through the proxy answers each call in order: a result, an isError result, and an
 *    error (-32602) for an unknown tool.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { PRODUCT_TOOLS } from "./product-tools";
import { ROOT } from "./next-server.mjs";
import { connectClient, messageOf, waitFor, type SseEvent } from "./sdk-client";
import { startTwoInstances, type TwoInstances } from "./two-instances";
import { connectModernClient } from "./v2-client";
import {
  V2026,
  callTool,
  initialize,
  isRecord,
  methodOf,
  namedData,
  openStream,
  postMessage,
  request,
  uniqueId,
  type Json,
  type SessionRef,
} from "./raw-sessions";

/** Where the two instances keep their shared state, and how the tools CLI reaches it. */
export interface ScaleOutBackend {
  /** Added to both instances' environment (over startTwoInstances' defaults: REDIS_URL, no Upstash). */
  env: Record<string, string>;
  /** The environment `npm run tools` runs with: the same store and MCP_CLUSTER_PREFIX. */
  toolsEnv: Record<string, string>;
}

export interface ScaleOutOptions {
  /** Prefix of the PostgreSQL schema made for the run. */
  prefix: string;
  /** Called once before the instances start. */
  backend(): Promise<ScaleOutBackend>;
}

/**
 * The tool test 7 switches off for a moment. Not suggest_names: the switch is global to every
 * instance on the same Redis and MCP_CLUSTER_PREFIX (mcp:worldcrafter:tools:disabled), and
 * tests/edge/rate-limits runs its own instances on the shared Redis calling suggest_names, possibly
 * at the same time. No other suite on a shared Redis calls export_world.
 */
const SWITCHED_TOOL = "export_world";

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" } as const;
const META_2026 = { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} };

/** A subject used by one test only: tool events go to the subject's streams, data is the subject's. */
const newSubject = (name: string) => `scale-${name}-${randomUUID().slice(0, 8)}`;

/** initialize on `initUrl`, notifications/initialized on `readyUrl` (202 expected). */
async function session(initUrl: string, readyUrl: string, options: { token?: string; capabilities?: Json } = {}): Promise<SessionRef> {
  const s = await initialize(initUrl, options);
  const ready = await postMessage(readyUrl, s.headers, INITIALIZED);
  expect(ready.status).toBe(202);
  return s;
}

function structured(result: Json): Json {
  const value = result.structuredContent;
  if (!isRecord(value)) throw new Error(`no structuredContent in ${JSON.stringify(result).slice(0, 300)}`);
  return value;
}

async function toolNames(url: string, headers: Record<string, string>): Promise<string[]> {
  const result = await request(url, headers, "tools/list");
  const tools = Array.isArray(result.tools) ? result.tools : [];
  return tools.flatMap((t: unknown) => (isRecord(t) && typeof t.name === "string" ? [t.name] : []));
}

const worldIdOf = (created: Json): string => {
  const world = structured(created).world;
  if (!isRecord(world) || typeof world.id !== "string") throw new Error(`create_world gave no id: ${JSON.stringify(created).slice(0, 300)}`);
  return world.id;
};

export function describeScaleOut(title: string, options: ScaleOutOptions): void {
  describe(title, () => {
    let cluster: TwoInstances;
    let backend: ScaleOutBackend;
    /** The product endpoint on instance A, on instance B, and through the proxy. */
    let A = "";
    let B = "";
    let PROXY = "";
    /** The conformance fixture endpoint (test_slow, test_cancellations) on A and on B. */
    let FA = "";
    let FB = "";

    beforeAll(async () => {
      backend = await options.backend();
      cluster = await startTwoInstances({ prefix: options.prefix, env: backend.env });
      A = `${cluster.a.url}/api/mcp`;
      B = `${cluster.b.url}/api/mcp`;
      PROXY = cluster.resourceUrl;
      FA = `${cluster.a.url}/api/conformance/mcp`;
      FB = `${cluster.b.url}/api/conformance/mcp`;
    }, 90_000);

    afterAll(async () => {
      await cluster?.stop();
    }, 60_000);

    it("1. a session initialized on A continues on B and back on A, with the same Mcp-Session-Id", async () => {
      const token = await cluster.tokenFor(newSubject("handover"));
      const s = await initialize(A, { token });

      const ready = await postMessage(B, s.headers, INITIALIZED);
      expect(ready.status).toBe(202);

      const list = await postMessage(B, s.headers, { jsonrpc: "2.0", id: "list-on-b", method: "tools/list" });
      expect(list.status).toBe(200);
      expect(list.headers.get("mcp-session-id")).toBe(s.sessionId);
      const listed = list.response?.result;
      if (!isRecord(listed) || !Array.isArray(listed.tools)) throw new Error(`tools/list on B: ${list.text.slice(0, 300)}`);
      expect(listed.tools.map((t: unknown) => (isRecord(t) ? t.name : undefined)).sort()).toEqual(expect.arrayContaining(PRODUCT_TOOLS));

      const names = await callTool(B, s.headers, "suggest_names", { style: "elvish", kind: "place", count: 3 });
      expect(names.isError).toBeFalsy();
      expect(structured(names).names).toHaveLength(3);

      // Both instances work on the one database: a world made through B is read through A.
      const worldId = worldIdOf(await callTool(B, s.headers, "create_world", { name: "Handover Isle", theme: "fantasy" }));
      const read = await callTool(A, s.headers, "get_world", { worldId });
      expect(read.isError).toBeFalsy();
      expect(structured(read).world).toMatchObject({ id: worldId, name: "Handover Isle" });

      const pong = await postMessage(A, s.headers, { jsonrpc: "2.0", id: "ping-on-a", method: "ping" });
      expect(pong.status).toBe(200);
      expect(pong.headers.get("mcp-session-id")).toBe(s.sessionId);
      expect(pong.response).toEqual({ jsonrpc: "2.0", id: "ping-on-a", result: {} });
    });

    it("2. a GET stream on A: connected, ping, then the progress, completion and failure of the subject's tool runs on B", async () => {
      const token = await cluster.tokenFor(newSubject("events"));
      const s = await session(A, A, { token });
      const opened = Date.now();
      const get = await openStream(`${A}?events=named`, { method: "GET", headers: s.headers });

      // Before the first named event only the 2025-11-25 priming event (an id, empty data) may come.
      const before: SseEvent[] = [];
      const first = await get.reader.until((e) => {
        if (e.event === undefined) before.push(e);
        return e.event !== undefined;
      }, 5_000);
      expect(before.every((e) => e.data === "" && e.id !== undefined)).toBe(true);
      expect(first.event).toBe("connected");
      expect(JSON.parse(first.data)).toEqual({ status: "ready" });

      // MCP_SSE_PING_MS=1000: a ping well within two seconds of opening.
      const ping = await get.reader.until((e) => e.event === "ping", 2_500);
      expect(JSON.parse(ping.data)).toEqual({});
      expect(Date.now() - opened).toBeLessThan(2_500);

      // The call runs on B (no progressToken: the named events do not depend on one).
      const outline = await callTool(B, s.headers, "draft_world_outline", { name: "Farrowmere" });
      expect(outline.isError).toBeFalsy();
      const progress: number[] = [];
      const complete = await get.reader.until((e) => {
        if (e.event === "tool-progress") {
          const data = namedData(e);
          expect(data.toolName).toBe("draft_world_outline");
          progress.push(Number(data.progress));
        }
        return e.event === "tool-complete";
      }, 10_000);
      expect(progress).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
      const done = namedData(complete);
      expect(done).toEqual({ toolName: "draft_world_outline", result: { structuredContent: structured(outline) } });
      expect(structured(outline)).toMatchObject({ name: "Farrowmere" });
      expect(structured(outline).sections).toHaveLength(10);

      // A failing call on B (an isError result) is a tool-error on A's stream.
      const missing = await callTool(B, s.headers, "get_world", { worldId: "no-such-world" });
      expect(missing.isError).toBe(true);
      const failed = await get.reader.until((e) => e.event === "tool-error" || e.event === "tool-complete", 10_000);
      expect(failed.event).toBe("tool-error");
      const error = namedData(failed);
      expect(error.toolName).toBe("get_world");
      expect(error.error).toMatchObject({ message: expect.any(String) });
    });

    it("3. an elicitation raised by a handler on A is answered by a POST that lands on B", async () => {
      const token = await cluster.tokenFor(newSubject("elicit"));
      const s = await session(A, B, { token, capabilities: { elicitation: { form: {} } } });
      const worldId = worldIdOf(await callTool(B, s.headers, "create_world", { name: "Dunmere", theme: "fantasy" }));

      const callId = uniqueId("delete");
      const call = await openStream(A, {
        method: "POST",
        headers: s.headers,
        body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "delete_world", arguments: { worldId } } },
      });
      const asked = await call.reader.until((e) => methodOf(e) === "elicitation/create", 10_000);
      const question = messageOf(asked);
      expect(question?.id).toBeDefined();
      expect(question?.params).toMatchObject({ requestedSchema: { required: ["confirm"] } });

      // The answer goes to the other instance, which has no idea of the question: it forwards it.
      const answered = await postMessage(B, s.headers, { jsonrpc: "2.0", id: question?.id, result: { action: "accept", content: { confirm: true } } });
      expect(answered.status).toBe(202);

      const final = await call.reader.until((e) => messageOf(e)?.id === callId, 10_000);
      const response = messageOf(final);
      expect(response?.error).toBeUndefined();
      const result = response?.result;
      if (!isRecord(result)) throw new Error(`no result: ${final.data}`);
      expect(structured(result)).toMatchObject({ deleted: true, worldId });
      // The call is over: its stream ends.
      await expect(call.reader.rest(5_000)).resolves.toEqual([]);

      const gone = await callTool(B, s.headers, "get_world", { worldId });
      expect(gone.isError).toBe(true);
    });

    it("4. a stream dropped mid-call on A resumes on B with no event lost or duplicated", async () => {
      const s = await session(FA, FA);
      const callId = uniqueId("slow");
      const progressToken = uniqueId("progress");
      const seen: number[] = [];
      const results: Json[] = [];
      let lastEventId: string | undefined;
      const record = (e: SseEvent) => {
        if (e.id !== undefined) lastEventId = e.id;
        const message = messageOf(e);
        if (message?.method === "notifications/progress" && isRecord(message.params) && message.params.progressToken === progressToken) {
          seen.push(Number(message.params.progress));
        }
        if (message?.id === callId) results.push(message);
      };

      const call = await openStream(FA, {
        method: "POST",
        headers: s.headers,
        body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "test_slow", arguments: { ms: 2_000 }, _meta: { progressToken } } },
      });
      while (seen.length < 3) {
        const event = await call.reader.next(5_000);
        if (!event) throw new Error("the call's stream ended before three progress notifications");
        record(event);
      }
      const onA = seen.length;
      // The connection drops (whatever A already sent after this point is lost with it).
      await call.close();
      if (!lastEventId) throw new Error("no event id seen on A's stream");
      const streamId = lastEventId.slice(0, lastEventId.lastIndexOf("_"));

      const resumed = await openStream(FB, { method: "GET", headers: { ...s.headers, "last-event-id": lastEventId } });
      const replay = await resumed.reader.rest(10_000); // ends when the call has finished
      for (const e of replay) {
        // The same logical stream, continued: ids keep its name and count on.
        expect(e.id?.startsWith(`${streamId}_`)).toBe(true);
        record(e);
      }

      expect(onA).toBe(3);
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ result: { content: [{ type: "text", text: "Waited 2000 ms" }] } });
    });

    it("4b. a resume on B right after the drop (the log still being written) gets every event, then ends", async () => {
      // The owner publishes an event only once it is in the shared log: a follower that reads the
      // log and then listens can miss nothing, however close behind it comes.
      const s = await session(A, A, { token: await cluster.tokenFor(newSubject("burst")) });
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const callId = uniqueId("outline");
        const progressToken = uniqueId("progress");
        const call = await openStream(A, {
          method: "POST",
          headers: s.headers,
          body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "draft_world_outline", arguments: { name: `Burst ${attempt}` }, _meta: { progressToken } } },
        });
        const priming = await call.reader.next(5_000);
        await call.close();
        expect(priming?.id, "the priming event").toBeDefined();
        const resumed = await openStream(B, { method: "GET", headers: { ...s.headers, "last-event-id": priming!.id! } });
        const rest = await resumed.reader.rest(8_000);
        const progress = rest.map(messageOf).filter((m) => m?.method === "notifications/progress").map((m) => Number((m!.params as Json).progress));
        expect(progress, `attempt ${attempt}`).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(rest.map(messageOf).filter((m) => m?.id === callId), `attempt ${attempt}`).toHaveLength(1);
      }
    });

    it("4c. a running call that is quiet for longer than the retention time stays resumable on the other instance", async () => {
      const s = await session(FA, FA);
      const progressToken = uniqueId("progress");
      const call = await openStream(FA, {
        method: "POST",
        headers: s.headers,
        body: { jsonrpc: "2.0", id: uniqueId("quiet"), method: "tools/call", params: { name: "test_slow", arguments: { ms: 30_000 }, _meta: { progressToken } } },
      });
      let lastEventId: string | undefined;
      for (let i = 0; i < 3 && !lastEventId?.endsWith("_2"); i += 1) {
        const e = await call.reader.next(6_000);
        if (e?.id) lastEventId = e.id;
      }
      await call.close();
      expect(lastEventId).toBeDefined();
      // Longer than MCP_STREAM_RETENTION_MS (1.5 s), shorter than the next progress step (3 s apart).
      await new Promise((r) => setTimeout(r, 1_800));
      const resumed = await openStream(FB, { method: "GET", headers: { ...s.headers, "last-event-id": lastEventId! } });
      expect(resumed.status).toBe(200);
      await resumed.close();
    });

    it("4d. a Last-Event-ID beyond the last its stream issued is 400 on the owner and on the other instance; the last real one, a named event's, resumes on B", async () => {
      const s = await session(A, A);
      const get = await openStream(`${A}?events=named`, { method: "GET", headers: s.headers });
      const connected = await get.reader.until((e) => e.event === "connected", 5_000);
      const real = connected.id ?? "";
      const streamId = real.slice(0, real.lastIndexOf("_"));
      expect(real).toBe(`${streamId}_1`);
      const statusOf = async (url: string, lastEventId: string) => {
        const res = await fetch(url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastEventId, ...s.headers }, signal: AbortSignal.timeout(10_000) });
        await res.body?.cancel();
        return res.status;
      };
      for (const [name, url] of [["A", A], ["B", B]] as const) {
        for (const forged of [`${streamId}_2`, `${streamId}_999999`, `${streamId}_01`]) expect(await statusOf(url, forged), `${forged} on ${name}`).toBe(400);
      }
      // The refusals on A did not take the stream over: its connection still gets its pings.
      expect((await get.reader.next(3_000))?.event).toBe("ping");
      await get.close();
      // The shared log knows the id of a named event too, though it never replays one.
      const resumed = await openStream(B, { method: "GET", headers: { ...s.headers, "last-event-id": real } });
      expect(resumed.status).toBe(200);
      await resumed.close();
    });

    it("4e. a resume on B at once with the id just received on A (the log perhaps not there yet) gets the rest", async () => {
      const s = await session(A, A, { token: await cluster.tokenFor(newSubject("latest")) });
      const progressOf = (e: SseEvent) => {
        const m = messageOf(e);
        return m?.method === "notifications/progress" && isRecord(m.params) ? Number(m.params.progress) : undefined;
      };
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const callId = uniqueId("outline");
        const call = await openStream(A, {
          method: "POST",
          headers: s.headers,
          body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "draft_world_outline", arguments: { name: `Latest ${attempt}` }, _meta: { progressToken: uniqueId("progress") } } },
        });
        const third = await call.reader.until((e) => progressOf(e) === 3, 5_000);
        await call.close();
        const resumed = await openStream(B, { method: "GET", headers: { ...s.headers, "last-event-id": third.id! } });
        const rest = await resumed.reader.rest(8_000);
        expect(rest.map(progressOf).filter((p) => p !== undefined), `attempt ${attempt}`).toEqual([4, 5, 6, 7, 8, 9, 10]);
        expect(rest.map(messageOf).filter((m) => m?.id === callId), `attempt ${attempt}`).toHaveLength(1);
      }
    });

    it("4f. a call on A whose client does not come back within the grace period ends with its error response, replayed by a resume on B", async () => {
      // basic/transports §sending messages 6: the server SHOULD eventually answer. A gives the
      // request up after MCP_RESUME_GRACE_MS (5 s) and logs its error response to the shared log,
      // which keeps it MCP_STREAM_RETENTION_MS (1.5 s) after that last event.
      const s = await session(FA, FA);
      const callId = uniqueId("abandoned");
      const call = await openStream(FA, {
        method: "POST",
        headers: s.headers,
        body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "test_slow", arguments: { ms: 30_000 }, _meta: { progressToken: uniqueId("progress") } } },
      });
      const priming = await call.reader.next(5_000);
      expect(priming?.id, "the priming event").toBeDefined();
      await call.close();
      await new Promise((r) => setTimeout(r, 5_400));
      const resumed = await openStream(FB, { method: "GET", headers: { ...s.headers, "last-event-id": priming!.id! } });
      const rest = await resumed.reader.rest(5_000); // ends on its own: the stream is finished
      const answers = rest.map(messageOf).filter((m) => m?.id === callId);
      expect(answers).toHaveLength(1);
      expect(answers[0]).toMatchObject({ id: callId, error: { code: -32603, message: expect.stringMatching(/did not reconnect to its stream within 5000 ms/) } });
    });

    it("5. DELETE on B ends the session on A: its GET stream and running call end, the handler is aborted, A answers 404", async () => {
      const s = await session(FA, FA);
      const get = await openStream(`${FA}?events=named`, { method: "GET", headers: s.headers });
      await get.reader.until((e) => e.event === "connected", 5_000);
      const callId = uniqueId("doomed");
      const progressToken = uniqueId("progress");
      const call = await openStream(FA, {
        method: "POST",
        headers: s.headers,
        body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "test_slow", arguments: { ms: 10_000 }, _meta: { progressToken } } },
      });
      // Running for sure before the session ends.
      await call.reader.until((e) => methodOf(e) === "notifications/progress", 5_000);

      const del = await fetch(FB, { method: "DELETE", headers: s.headers, signal: AbortSignal.timeout(5_000) });
      expect(del.status).toBe(200);

      // Both of A's connections end on their own (rest() fails if they are still open after 5 s).
      const started = Date.now();
      await get.reader.rest(5_000);
      const tail = await call.reader.rest(5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(tail.map(messageOf).filter((m) => m?.id === callId)).toEqual([]);

      // The fixture on A recorded the handler's aborted signal (read through a session of its own).
      const other = await session(FA, FA);
      const aborted = await waitFor(async () => {
        const result = await callTool(FA, other.headers, "test_cancellations");
        const list = structured(result).cancelled;
        return Array.isArray(list) ? list.find((c: unknown) => isRecord(c) && c.requestId === callId) : undefined;
      });
      expect(aborted).toMatchObject({ requestId: callId, reason: expect.stringMatching(/session terminated/) });

      const after = await postMessage(FA, s.headers, { jsonrpc: "2.0", id: "after-delete", method: "ping" });
      expect(after.status).toBe(404);
    });

    it("6. the official 1.x and v2 clients work through the round-robin proxy", async () => {
      const subject = newSubject("clients");
      const token = await cluster.tokenFor(subject);
      const servedBefore = [...cluster.proxy.served];

      const elicited: ElicitRequest["params"][] = [];
      const { client } = await connectClient(PROXY, {
        token,
        capabilities: { elicitation: { form: {} } },
        setup: (c) =>
          c.setRequestHandler(ElicitRequestSchema, async (req) => {
            elicited.push(req.params);
            return { action: "accept", content: { confirm: true } };
          }),
      });
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(PRODUCT_TOOLS));

      const progress: number[] = [];
      const outline = await client.callTool({ name: "draft_world_outline", arguments: { name: "Quillhaven" } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(outline.isError).toBeFalsy();
      expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

      const created = await client.callTool({ name: "create_world", arguments: { name: "Ashgrove", theme: "fantasy" } });
      const worldId = worldIdOf(created as Json);
      const deleted = await client.callTool({ name: "delete_world", arguments: { worldId } });
      expect(deleted.isError).toBeFalsy();
      expect(deleted.structuredContent).toMatchObject({ deleted: true, worldId });
      expect(elicited).toHaveLength(1);

      // The v2 client (2026-07-28, no session) with the same subject's token.
      const v2 = await connectModernClient(PROXY, { token, name: "worldcrafter-scale-v2" });
      const v2Tools = await v2.client.listTools();
      expect(v2Tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(PRODUCT_TOOLS));
      const names = await v2.client.callTool({ name: "suggest_names", arguments: { style: "dwarvish", kind: "person", count: 2 } });
      expect(names.isError).toBeFalsy();
      expect((names.structuredContent as Json | undefined)?.names).toHaveLength(2);
      const v2World = await v2.client.callTool({ name: "create_world", arguments: { name: "Cinderfall", theme: "steampunk" } });
      expect(v2World.isError).toBeFalsy();
      const v2WorldId = worldIdOf(v2World as Json);
      // Same subject, same data: the 1.x session reads what the v2 client wrote.
      const read = await client.callTool({ name: "get_world", arguments: { worldId: v2WorldId } });
      expect(read.structuredContent).toMatchObject({ world: { id: v2WorldId, name: "Cinderfall" } });
      expect(v2.errors).toEqual([]);
      expect(v2.http.every((h) => h.requestHeaders.get("authorization") === `Bearer ${token}`)).toBe(true);

      // The proxy did spread this conversation over both instances.
      const servedNow = cluster.proxy.served;
      expect((servedNow[0] ?? 0) - (servedBefore[0] ?? 0)).toBeGreaterThan(2);
      expect((servedNow[1] ?? 0) - (servedBefore[1] ?? 0)).toBeGreaterThan(2);
    });

    it("7. npm run tools switches a tool on both instances: list_changed on A's GET stream and B's listen stream", async () => {
      const token = await cluster.tokenFor(newSubject("switch"));
      const s = await session(A, A, { token });
      const get = await openStream(`${A}?events=named`, { method: "GET", headers: s.headers });
      await get.reader.until((e) => e.event === "connected", 5_000);

      const listenId = uniqueId("listen");
      const listen = await openStream(B, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": "subscriptions/listen" },
        body: { jsonrpc: "2.0", id: listenId, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: META_2026 } },
      });
      const ack = await listen.reader.next(5_000);
      if (!ack) throw new Error("the listen stream ended before its acknowledgement");
      expect(methodOf(ack)).toBe("notifications/subscriptions/acknowledged");

      const changed = (e: SseEvent) => methodOf(e) === "notifications/tools/list_changed";
      let switchedOff = false;
      try {
        switchedOff = true;
        await switchTool(backend.toolsEnv, "disable", SWITCHED_TOOL);
        await get.reader.until(changed, 10_000);
        const onListen = await listen.reader.until(changed, 10_000);
        expect(messageOf(onListen)?.params).toEqual({ _meta: { "io.modelcontextprotocol/subscriptionId": listenId } });
        // Each instance announced its own registry's change, so both lists have it now.
        expect(await toolNames(A, s.headers)).not.toContain(SWITCHED_TOOL);
        expect(await toolNames(B, s.headers)).not.toContain(SWITCHED_TOOL);

        await switchTool(backend.toolsEnv, "enable", SWITCHED_TOOL);
        switchedOff = false;
        await get.reader.until(changed, 10_000);
        await listen.reader.until(changed, 10_000);
        expect(await toolNames(A, s.headers)).toContain(SWITCHED_TOOL);
        expect(await toolNames(B, s.headers)).toContain(SWITCHED_TOOL);
      } finally {
        // The switch outlives this run (it is in the shared Redis): never leave the tool off.
        if (switchedOff) await switchTool(backend.toolsEnv, "enable", SWITCHED_TOOL);
      }
    });

    it("8. tools/batch through the proxy answers each call in order: result, isError result, unknown-tool error", async () => {
      const token = await cluster.tokenFor(newSubject("batch"));
      const s = await session(PROXY, PROXY, { token });
      const calls = [
        { name: "suggest_names", arguments: { style: "elvish", kind: "realm", count: 2 } },
        { name: "get_world", arguments: { worldId: "no-such-world" } },
        { name: "no_such_tool", arguments: {} },
      ];
      // Twice: the proxy sends consecutive requests to different instances; both answer alike.
      for (let round = 0; round < 2; round++) {
        const result = await request(PROXY, s.headers, "tools/batch", { calls });
        const results = Array.isArray(result.results) ? result.results : [];
        expect(results).toHaveLength(3);
        const [names, missing, unknown] = results as [Json, Json, Json];
        expect(names.name).toBe("suggest_names");
        expect(names.error).toBeUndefined();
        expect(isRecord(names.result) && structured(names.result).names).toHaveLength(2);
        expect(missing).toMatchObject({ name: "get_world", result: { isError: true } });
        expect(unknown).toMatchObject({ name: "no_such_tool", error: { code: -32602, message: expect.stringMatching(/no_such_tool/) } });
        expect(unknown.result).toBeUndefined();
      }
    });
  });
}

/** `npm run tools -- <command> <tool>` against the shared Redis, as an operator would run it. */
async function switchTool(env: Record<string, string>, command: "enable" | "disable", tool: string): Promise<void> {
  try {
    await promisify(execFile)("npm", ["run", "-s", "tools", "--", command, tool], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 30_000,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message?: string };
    throw new Error(`npm run tools -- ${command} ${tool} failed: ${e.message ?? ""}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}
