import type { NotificationHub } from "../../cluster/notification-hub";
import type { MethodEnv } from "../../methods";
import type { RequestLimiter } from "../../policy/rate-limit";
import type { RequestLogger } from "../../runtime/request-log";
import type { PendingRequests } from "../pending-requests";
import type { StreamTable } from "../resumable-streams";
import type { ToolEvents } from "../tool-events";
import type { ModernResults } from "./modern-results";
import type { RequestStateCodec } from "./request-state";

/**
 * What every part of the 2026-07-28 era shares: built once by streamable-http.ts and passed to
 * each handler in this folder.
 */
export interface StatelessEraOptions {
  env: MethodEnv;
  hub: NotificationHub;
  streams: StreamTable;
  pending: PendingRequests;
  states: RequestStateCodec;
  results: ModernResults;
  keepAliveMs: number;
  listenMaxLifetimeMs: number;
  log: RequestLogger | undefined;
  limiter?: RequestLimiter;
  toolEvents: ToolEvents;
}
