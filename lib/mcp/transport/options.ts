import type { ClientAddressPolicy } from "../../http/client-address";
import type { OriginPolicy } from "../../http/origin-guard";
import type { AccessControl } from "../../auth/access-control";
import type { Cluster } from "../cluster/cluster";
import type { NotificationHub } from "../cluster/notification-hub";
import type { MethodEnv } from "../methods";
import type { RequestLimiter } from "../policy/rate-limit";
import type { CacheHint } from "../protocol/cache-hint";
import type { RequestLogger } from "../runtime/request-log";
import type { RequestStateCodec } from "./stateless/request-state";

/**
 * What the Streamable HTTP endpoint is built from. Its own module so both eras can read it
 * without importing the handler that builds them.
 */
export interface StreamableHttpOptions {
  env: MethodEnv;
  /** "stateful" mints Mcp-Session-Id at initialize; "stateless" never does. */
  sessionMode: "stateful" | "stateless";
  /** Sessions, stream logs and the bus between instances (in process for a single one). */
  cluster: Cluster;
  sessionTtlMs: number;
  origin: OriginPolicy;
  maxBodyBytes: number;
  /** A request body must have arrived whole within this long; else 408 and the connection closes. */
  bodyTimeoutMs: number;
  maxBatch: number;
  maxJsonDepth: number;
  keepAliveMs: number;
  retryMs: number;
  resumeGraceMs: number;
  streamRetentionMs: number;
  clientRequestTimeoutMs: number;
  log: RequestLogger;
  hub: NotificationHub;
  requestStates: RequestStateCodec;
  /** ttlMs/cacheScope of list results in 2026-07-28. */
  listCache: CacheHint;
  listenMaxLifetimeMs: number;
  /** Who may call what (bearer tokens, required or mixed); absent: everything is open. */
  access?: AccessControl;
  /** Budgets per caller and a cap on open streams; absent: no limits. */
  limiter?: RequestLimiter;
  /** GET stream connections end after this long (clients reconnect). */
  streamMaxLifetimeMs: number;
  /** GET streams send a named `ping` event this often (seed 001: every 30 s). */
  pingMs: number;
  /** All request headers together; more is refused with 431. */
  maxHeaderBytes: number;
  /** Which sources of the client's address are believed (anonymous rate limits). */
  clientAddresses: ClientAddressPolicy;
}
