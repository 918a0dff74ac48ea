/** Header names of the Streamable HTTP transport, defined once (basic/transports). */
export const Header = {
  SessionId: "mcp-session-id",
  ProtocolVersion: "mcp-protocol-version",
  LastEventId: "last-event-id",
  Accept: "accept",
  ContentType: "content-type",
  ContentEncoding: "content-encoding",
  Origin: "origin",
  Host: "host",
  Allow: "allow",
  /** 2026-07-28: the JSON-RPC method, mirrored for gateways (basic/transports §request metadata headers). */
  Method: "mcp-method",
  /** 2026-07-28: params.name (tools/call, prompts/get) or params.uri (resources/read). */
  Name: "mcp-name",
} as const;

/** 2026-07-28: prefix of headers mirroring `x-mcp-header` tool parameters. */
export const PARAM_HEADER_PREFIX = "mcp-param-";

/** Spelling used when we set the headers on responses (case matters to some readers). */
export const ResponseHeader = {
  SessionId: "Mcp-Session-Id",
  ProtocolVersion: "MCP-Protocol-Version",
} as const;

export const MediaType = {
  Json: "application/json",
  EventStream: "text/event-stream",
} as const;

/**
 * GET /api/mcp?events=named: the GET stream also carries seed 001's named events (`connected`,
 * a named `ping`, `tool-progress`/`tool-complete`/`tool-error`) for dashboards that ask for them.
 * MCP clients must see JSON-RPC messages only (basic/transports §listening for messages): the
 * official Python SDK logs every unknown event, so without the parameter none is sent.
 */
export const NamedEvents = { param: "events", value: "named" } as const;
