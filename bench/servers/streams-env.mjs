/** The idle-streams cell's settings (bench/cells/idle-streams.mjs), and the `streams` server's environment they imply. */
import { envNumber } from "../config.mjs";

export const STREAMS = envNumber("BENCH_STREAMS", 10_000, { min: 2, integer: true });
export const STREAM_PING_MS = envNumber("BENCH_STREAM_PING_MS", 5_000, { min: 500, integer: true });
export const HOLD_SECONDS = envNumber("BENCH_STREAM_HOLD_SECONDS", 16, { min: 1 });

/** The streams server's settings on top of main's (catalog.mjs): pings, lifetimes past the hold, room for the sessions. */
export const STREAMS_ENV = {
  MCP_SSE_PING_MS: String(STREAM_PING_MS),
  MCP_SSE_KEEPALIVE_MS: String(STREAM_PING_MS),
  MCP_STREAM_MAX_LIFETIME_MS: "3600000",
  MCP_LISTEN_MAX_LIFETIME_MS: "3600000",
  MCP_MAX_SESSIONS: "1000000",
  MCP_MAX_SESSIONS_PER_CALLER: "100000",
  // One load generator on the loopback stands for 10,000 clients: the per-address connection cap would stop it at 1,000.
  MCP_MAX_CONNECTIONS_PER_ADDRESS: "0",
};

