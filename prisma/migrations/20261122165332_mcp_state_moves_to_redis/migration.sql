-- The MCP layer's shared state (sessions, resumable-stream events) lives in Redis when a
-- deployment runs several instances (lib/cluster): a session is read on every request, both
-- expire by TTL, and pub/sub reaches instances behind pooled PostgreSQL URLs. These tables,
-- made in anticipation, were never used.

-- DropTable
DROP TABLE "McpSession";

-- DropTable
DROP TABLE "McpStreamEvent";
