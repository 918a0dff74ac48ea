/** Reserved `_meta` keys of MCP 2026-07-28 (basic/index §_meta), defined once. */
export const MetaKey = {
  ProtocolVersion: "io.modelcontextprotocol/protocolVersion",
  ClientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  ClientInfo: "io.modelcontextprotocol/clientInfo",
  LogLevel: "io.modelcontextprotocol/logLevel",
  ServerInfo: "io.modelcontextprotocol/serverInfo",
  SubscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
