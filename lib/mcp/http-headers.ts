/** Header names of the Streamable HTTP transport, defined once (basic/transports). */
export const Header = {
  SessionId: "mcp-session-id",
  ProtocolVersion: "mcp-protocol-version",
  LastEventId: "last-event-id",
  Accept: "accept",
  ContentType: "content-type",
  Origin: "origin",
  Host: "host",
  Allow: "allow",
} as const;

/** Spelling used when we set the headers on responses (case matters to some readers). */
export const ResponseHeader = {
  SessionId: "Mcp-Session-Id",
  ProtocolVersion: "MCP-Protocol-Version",
} as const;

export const MediaType = {
  Json: "application/json",
  EventStream: "text/event-stream",
} as const;
