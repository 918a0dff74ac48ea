import type { Env } from "../config/env";
import { SOLO_BUS, type Cluster } from "../mcp/cluster/cluster";
import { MemorySessionStore } from "../mcp/transport/session-store";
import { MemorySpentStateStore } from "../mcp/transport/stateless/request-state";
import { redisCluster } from "./redis-cluster";
import { ioredisPort, upstashPort } from "./redis-port";

/**
 * The cluster state a deployment's configuration asks for: in Redis when one is configured
 * (Upstash over REST, else REDIS_URL — the same variables as the rate limiter's), else in this
 * process, which serves exactly one instance. `namespace` keeps each endpoint's state apart.
 */
export function clusterOf(env: Env, namespace: string): Cluster {
  const keys = `${env.MCP_CLUSTER_PREFIX}:${namespace}:`;
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) return redisCluster(upstashPort(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN), keys, env.MCP_MAX_SESSIONS_PER_CALLER, env.MCP_INSTANCE_LIVENESS_MS);
  if (env.REDIS_URL) return redisCluster(ioredisPort(env.REDIS_URL, env.MCP_CLUSTER_TIMEOUT_MS), keys, env.MCP_MAX_SESSIONS_PER_CALLER, env.MCP_INSTANCE_LIVENESS_MS);
  if (!saidSolo) {
    saidSolo = true;
    process.stderr.write("Sessions and streams are kept in this process (no UPSTASH_REDIS_REST_URL or REDIS_URL): run one instance, or configure Redis.\n");
  }
  return { sessions: new MemorySessionStore(env.MCP_MAX_SESSIONS, env.MCP_MAX_SESSIONS_PER_CALLER), spentStates: new MemorySpentStateStore(), bus: SOLO_BUS };
}

let saidSolo = false;
