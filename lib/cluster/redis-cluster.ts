import { createHash, randomUUID } from "node:crypto";
import type { JsonRpcId } from "../jsonrpc";
import { INSTANCE_ID, storeUnavailable, type Cluster, type ClusterBus, type ClusterMessage, type LoggedStreamEvent, type LoggedStreamId, type StreamLog, type ToolSwitches } from "../mcp/cluster/cluster";
import { logUnexpected } from "../log/operator-log";
import type { SessionRecord, SessionStore } from "../mcp/transport/session-store";
import type { SpentStateStore } from "../mcp/transport/stateless/request-state";
import type { RedisPort } from "./redis-port";

/**
 * The cluster state in Redis — chosen over PostgreSQL because every request of a session reads
 * its session (a Redis GET is a fraction of a query), sessions and stream logs expire by
 * themselves (TTLs), and pub/sub works on plain Redis and on Upstash over REST, whereas
 * PostgreSQL's LISTEN needs a direct connection that Neon's and Vercel's pooled URLs do not give.
 *
 * Keys, under `<MCP_CLUSTER_PREFIX>:<endpoint>:` (`mcp:worldcrafter:`): session:<id> (JSON, TTL =
 * idle expiry), spent:<nonce>, stream:<id>:meta and :events (a capped list), instance:<id>:alive
 * (while an instance that has logged a stream lives), tools:disabled;
 * channel <prefix>:<endpoint>:cluster. Two endpoints, or two deployments with different
 * prefixes, on one Redis never see each other's state.
 */

const MAX_STREAM_EVENTS = 1_000;

/** A session's record changed under an update this many times in a row: answered 503, retried by the client. */
const MAX_UPDATE_ATTEMPTS = 16;

function sessionStore(redis: RedisPort, ns: string, maxPerCaller: number): SessionStore {
  const key = (id: string) => `${ns}session:${id}`;
  // A caller's session ids, oldest first, trimmed to the cap; lives as long as its newest session.
  const callerKey = (caller: string) => `${ns}caller-sessions:${createHash("sha256").update(caller).digest("base64url")}`;
  const ttl = (record: SessionRecord) => record.expiresAt - Date.now();
  async function read(id: string): Promise<SessionRecord | undefined> {
    const text = await redis.get(key(id));
    if (!text) return undefined;
    const record = JSON.parse(text) as SessionRecord;
    return record.expiresAt > Date.now() ? record : undefined;
  }
  return {
    async create(record) {
      // The cap counts this caller's sessions only: its oldest make room, nobody else's. The list
      // is pushed and trimmed in one transaction that hands back what it trimmed, so two
      // initializes at once (on one instance or two) never both miss an eviction: reading the
      // list first and trimming later left a session off the list yet alive (soak, issue 19).
      const evicted = await redis.setAndPush(key(record.id), JSON.stringify(record), ttl(record), callerKey(record.caller), record.id, maxPerCaller);
      if (evicted.length > 0) await Promise.all(evicted.map((id) => redis.del(key(id))));
      return evicted;
    },
    get: read,
    async update(id, change) {
      // Compare-and-set, read again and retried when another write came between: two subscribes
      // sent at once (an SDK's Promise.all) each kept only their own URI, and a write racing a
      // DELETE set the deleted session again, alive for another TTL (outside audit).
      for (let attempt = 1; ; attempt++) {
        const text = await redis.get(key(id));
        if (!text) return;
        const current = JSON.parse(text) as SessionRecord;
        if (current.expiresAt <= Date.now()) return;
        const patch = typeof change === "function" ? change(current) : change;
        if (!patch) return;
        const next = { ...current, ...patch };
        const outcome = await redis.setIfEquals(key(id), text, JSON.stringify(next), ttl(next));
        if (outcome !== "changed") return;
        if (attempt >= MAX_UPDATE_ATTEMPTS) throw storeUnavailable();
      }
    },
    async delete(id) {
      const existed = (await redis.get(key(id))) !== null;
      await redis.del(key(id));
      return existed;
    },
  };
}

/** A claim of a request refused 503 is tried to be taken back after this, then twice as long each time, up to the cap. */
const RELEASE_FIRST_RETRY_MS = 500;
const RELEASE_MAX_RETRY_MS = 8_000;

/**
 * Spent requestState nonces. SET NX: exactly one instance succeeds in spending a nonce. Each
 * spend claims it with a value of its own, because a SET that timed out may still land once Redis
 * answers again: the request was refused 503 with Retry-After and never ran, so its claim is taken
 * back (compare-and-delete, retried until Redis answers or the state expires), and the client's
 * retry finds the nonce unspent rather than "already used" (outside audit, 2026-11-27). Only that
 * claim is deleted: a spend by anyone else stays.
 */
function spentStates(redis: RedisPort, raw: RedisPort, ns: string): SpentStateStore {
  const release = (key: string, claim: string, expiresAt: number): void => {
    const attempt = (waitMs: number) => {
      raw.delIfEquals(key, claim).catch(() => {
        if (Date.now() + waitMs < expiresAt) setTimeout(() => attempt(Math.min(2 * waitMs, RELEASE_MAX_RETRY_MS)), waitMs).unref?.();
      });
    };
    attempt(RELEASE_FIRST_RETRY_MS);
  };
  return {
    async spend(nonce, expiresAt) {
      const key = `${ns}spent:${nonce}`;
      const claim = randomUUID();
      try {
        return await redis.set(key, claim, Math.max(1_000, expiresAt - Date.now()), true);
      } catch (thrown) {
        release(key, claim, expiresAt);
        throw thrown;
      }
    },
  };
}

function bus(redis: RedisPort, channel: string): ClusterBus {
  const handlers = new Set<(message: ClusterMessage) => void>();
  let subscribed: Promise<boolean> | undefined;
  const deliver = (text: string) => {
    let parsed: { origin: string; message: ClusterMessage };
    try {
      parsed = JSON.parse(text) as { origin: string; message: ClusterMessage };
    } catch {
      return;
    }
    if (parsed.origin === INSTANCE_ID) return;
    for (const handler of handlers) {
      try {
        handler(parsed.message);
      } catch (thrown) {
        logUnexpected("cluster message", thrown);
      }
    }
  };
  return {
    publish(message) {
      redis.publish(channel, JSON.stringify({ origin: INSTANCE_ID, message })).catch((thrown: unknown) => logUnexpected("cluster publish", thrown));
    },
    subscribe(handler) {
      handlers.add(handler);
      subscribed ??= redis.subscribe(channel, deliver).then(
        () => true,
        (thrown: unknown) => {
          subscribed = undefined;
          logUnexpected("cluster subscribe", thrown);
          return false;
        },
      );
      return () => handlers.delete(handler);
    },
    joined: () => subscribed ?? Promise.resolve(false),
  };
}

/**
 * While a stream runs, its log lives long (a call may wait minutes for the user's answer with no
 * event meanwhile, and must stay resumable everywhere); once finished, it is kept for the
 * retention time only.
 */
const RUNNING_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * How long an instance's liveness key lives unless renewed (MCP_INSTANCE_LIVENESS_MS); it is
 * renewed three times within that. An instance killed mid-stream (a crash, a serverless instance
 * reclaimed) is known to be gone this long after its last renewal, and a client following one of
 * its streams elsewhere is told, instead of waiting for events that will never come
 * (cluster-streams.ts).
 */
const DEFAULT_INSTANCE_LIVENESS_MS = 15_000;

/** A stream's record: whose it is, who owns it (the instance that runs it), what it answers. */
interface StreamMeta {
  sessionId: string | null;
  finished: boolean;
  /** Absent in records written before liveness was kept, and once finished. */
  owner?: string;
  /** Kept once finished too (RemoteStreams.endedStandalone); absent in records written before. */
  requestIds?: JsonRpcId[];
}

function streamLog(redis: RedisPort, ns: string, livenessMs: number): StreamLog {
  const meta = (id: string) => `${ns}stream:${id}:meta`;
  const events = (id: string) => `${ns}stream:${id}:events`;
  const alive = (instance: string) => `${ns}instance:${instance}:alive`;
  const retention = new Map<string, number>();
  let heartbeat: Promise<void> | undefined;
  /**
   * This instance's liveness key: written before the first stream it owns is logged, then renewed
   * for as long as the process lives (one small write every few seconds, whatever the traffic).
   */
  const beating = (): Promise<void> => {
    if (heartbeat) return heartbeat;
    const beat = () => redis.set(alive(INSTANCE_ID), "1", livenessMs);
    const started = beat().then(() => {
      const timer = setInterval(() => beat().catch((thrown: unknown) => logUnexpected("instance liveness", thrown)), livenessMs / 3);
      timer.unref?.();
    });
    heartbeat = started;
    // A first write that failed is tried again with the next stream.
    started.catch(() => {
      if (heartbeat === started) heartbeat = undefined;
    });
    return started;
  };
  return {
    livenessMs,
    async open(streamId, sessionId, retentionMs, requestIds) {
      retention.set(streamId, retentionMs);
      await beating();
      const record: StreamMeta = { sessionId: sessionId ?? null, finished: false, owner: INSTANCE_ID, requestIds: [...requestIds] };
      await redis.set(meta(streamId), JSON.stringify(record), RUNNING_TTL_MS);
    },
    async append(streamId, entry) {
      await redis.append(events(streamId), JSON.stringify(entry), MAX_STREAM_EVENTS, RUNNING_TTL_MS, meta(streamId));
    },
    async finish(streamId) {
      const ttl = retention.get(streamId) ?? 120_000;
      retention.delete(streamId);
      const current = await redis.get(meta(streamId));
      const was: StreamMeta | undefined = current ? (JSON.parse(current) as StreamMeta) : undefined;
      // Its requests are kept: a resume elsewhere tells a finished GET stream (none) from a POST's.
      const record: StreamMeta = { sessionId: was?.sessionId ?? null, finished: true, requestIds: was?.requestIds ?? [] };
      await Promise.all([redis.set(meta(streamId), JSON.stringify(record), ttl), redis.expire(events(streamId), ttl)]);
    },
    async read(streamId, afterSeq) {
      const [metaText, list] = await Promise.all([redis.get(meta(streamId)), redis.range(events(streamId))]);
      if (!metaText) return undefined;
      const info = JSON.parse(metaText) as StreamMeta;
      const logged = list.map((e) => JSON.parse(e) as LoggedStreamId);
      // Appended in order (the mirror chains each stream's writes) and trimmed from the front.
      const lastSeq = logged.at(-1)?.seq ?? 0;
      const replayed = logged.filter((e): e is LoggedStreamEvent => e.data !== undefined && e.seq > afterSeq);
      // Asked only of an unfinished stream another instance owns: the one case it can change.
      const abandoned = !info.finished && info.owner !== undefined && info.owner !== INSTANCE_ID && (await redis.get(alive(info.owner))) === null;
      // Every seq a stream issues is logged, so the first one kept follows the last one trimmed.
      const trimmed = (logged[0]?.seq ?? 1) > afterSeq + 1;
      return { events: replayed, lastSeq, finished: info.finished, sessionId: info.sessionId ?? undefined, requestIds: info.requestIds ?? [], abandoned, trimmed };
    },
    async live(instances) {
      const found = await Promise.all(instances.map(async (instance) => [instance, await redis.get(alive(instance))] as const));
      return new Set(found.filter(([, beat]) => beat !== null).map(([instance]) => instance));
    },
  };
}

/** Switched-off tools as one JSON list (small, read rarely: at start-up and on each switch). */
function toolSwitches(redis: RedisPort, ns: string): ToolSwitches {
  const key = `${ns}tools:disabled`;
  const read = async () => {
    const text = await redis.get(key);
    const parsed: unknown = text ? JSON.parse(text) : [];
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === "string") : [];
  };
  return {
    disabled: read,
    async set(tool, enabled) {
      const current = new Set(await read());
      if (enabled) current.delete(tool);
      else current.add(tool);
      // No expiry: a switch holds until switched back (10 years is "forever" for a TTL).
      await redis.set(key, JSON.stringify([...current].sort()), 10 * 365 * 24 * 3600 * 1000);
    },
  };
}

/**
 * The port, with every command that a request waits on failing as storeUnavailable() (503,
 * Retry-After) when Redis does not answer, instead of surfacing as a 500. Publishing and
 * subscribing keep their own handling (logged; the bus reconnects).
 */
function answering(redis: RedisPort): RedisPort {
  const guard =
    <A extends unknown[], R>(command: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await command(...args);
      } catch {
        throw storeUnavailable();
      }
    };
  return {
    ...redis,
    get: guard(redis.get),
    set: guard(redis.set),
    del: guard(redis.del),
    append: guard(redis.append),
    setAndPush: guard(redis.setAndPush),
    range: guard(redis.range),
    expire: guard(redis.expire),
    setIfEquals: guard(redis.setIfEquals),
  };
}

/** `ns`: the prefix of every key and channel, e.g. `mcp:worldcrafter:` (see clusterOf). */
export function redisCluster(port: RedisPort, ns: string, maxSessionsPerCaller: number, livenessMs = DEFAULT_INSTANCE_LIVENESS_MS): Cluster {
  const redis = answering(port);
  return {
    sessions: sessionStore(redis, ns, maxSessionsPerCaller),
    spentStates: spentStates(redis, port, ns),
    bus: bus(redis, `${ns}cluster`),
    streamLog: streamLog(redis, ns, livenessMs),
    switches: toolSwitches(redis, ns),
  };
}
