import { z } from "zod";
import { ErrorCode, McpError, type JsonRpcRequest } from "../../../jsonrpc";
import { Header, PARAM_HEADER_PREFIX } from "../../protocol/http-headers";
import { MetaKey } from "../../protocol/meta-keys";
import { ALL_SUPPORTED_VERSIONS, STATELESS_ERA_VERSIONS, isStatelessEraVersion, isSupportedVersion } from "../../protocol/protocol-versions";
import type { Registry } from "../../registry";
import { LOGGING_LEVELS, type LoggingLevel } from "../../protocol/types";
import { decodeHeaderValue, headerMatches } from "./header-value";
import { ownEntry } from "../../protocol/own-property";
import { STATELESS_ERA_METHODS } from "../../methods";
import { cutText } from "../../../text/cut-text";
import { repeatedHeadersHeader } from "../../../http/trusted-host.mjs";

/** The 2026-07-28 stream the transport serves itself, beside the era's method table. */
export const LISTEN_METHOD = "subscriptions/listen";

/** What a 2026-07-28 request says about its caller, read from `_meta` (basic/index §request _meta). */
export interface ModernRequestMeta {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  logThreshold: LoggingLevel | "none";
}

const RequiredMeta = z.looseObject({
  [MetaKey.ProtocolVersion]: z.string().min(1).max(64),
  [MetaKey.ClientCapabilities]: z.record(z.string(), z.unknown()),
});

type RequiredMetaShape = z.infer<typeof RequiredMeta>;

function wellFormedMeta(meta: unknown): RequiredMetaShape | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const m = meta as Record<string, unknown>;
  const version = m[MetaKey.ProtocolVersion];
  const caps = m[MetaKey.ClientCapabilities];
  if (typeof version !== "string" || version.length === 0 || version.length > 64) return undefined;
  if (typeof caps !== "object" || caps === null || Array.isArray(caps)) return undefined;
  return m as RequiredMetaShape;
}

/** Methods whose target travels in Mcp-Name, and where it sits in params (SEP-2663 adds the tasks methods' taskId). */
const NAME_SOURCE: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

/**
 * The checks a 2026-07-28 POST passes before dispatch, in the order the specification and the
 * conformance suite agree on:
 * 1. MCP-Protocol-Version present (-32020)  2. required `_meta` keys (-32602; a header
 *    version not supported: -32022)        3. header = `_meta` version (-32020)
 * 4. version supported (-32022)
 * 5. Mcp-Method, Mcp-Name, Mcp-Param-* (-32020)  6. logLevel valid (-32602)
 * The version comes before the method headers: they are this revision's requirements, so a client
 * speaking another one need not send them, and -32022 is the answer that tells it which versions
 * to retry with (basic/versioning §Protocol Version Negotiation; outside audit, 2026-11-27).
 * Unknown methods (404, -32601) are the dispatcher's.
 */
export function checkModernRequest(request: Request, message: JsonRpcRequest, registry: Registry): ModernRequestMeta {
  const headerVersion = request.headers.get(Header.ProtocolVersion)?.trim();
  if (!headerVersion) throw mismatch("the MCP-Protocol-Version header is required");

  const meta = message.params?._meta;
  // Fast path for the well-formed case (every request pays for this check); zod reports the rest.
  // A header naming a version this server does not speak, on a body without this revision's
  // `_meta`, is answered -32022 with the versions it does, not -32602 for the `_meta`: a client of
  // another revision has no reason to carry it (basic/transports §protocol version header: the
  // server MUST answer 400 and UnsupportedProtocolVersionError; outside audit). With a
  // well-formed `_meta`, the order below holds (a mismatch with it is -32020).
  const known = wellFormedMeta(meta) ?? (isStatelessEraVersion(headerVersion) || isSupportedVersion(headerVersion) ? requiredMeta(meta) : unsupportedVersion(headerVersion));
  const bodyVersion = known[MetaKey.ProtocolVersion];
  if (headerVersion !== bodyVersion) {
    throw mismatch(`MCP-Protocol-Version header "${headerVersion.slice(0, 64)}" does not match _meta "${bodyVersion}"`);
  }

  if (isSupportedVersion(bodyVersion)) {
    // A legacy version we do speak, asked for in the modern way: it is served only after an
    // initialize handshake. Listing it as supported here would send a client that follows
    // basic/versioning ("retry with a mutually supported version") back with the same request.
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${bodyVersion} is served after an initialize handshake, not with per-request _meta`, {
      supported: STATELESS_ERA_VERSIONS,
      requested: bodyVersion,
    });
  }
  if (!isStatelessEraVersion(bodyVersion)) unsupportedVersion(bodyVersion);

  checkMethodHeaders(request, message, registry);

  const rawLevel = (meta as Record<string, unknown>)[MetaKey.LogLevel];
  let logThreshold: LoggingLevel | "none" = "none";
  if (rawLevel !== undefined) {
    if (typeof rawLevel !== "string" || !(LOGGING_LEVELS as readonly string[]).includes(rawLevel)) {
      throw McpError.invalidParams(`Invalid params: _meta "${MetaKey.LogLevel}" must be one of ${LOGGING_LEVELS.join(", ")}`);
    }
    logThreshold = rawLevel as LoggingLevel;
  }
  return { protocolVersion: bodyVersion, clientCapabilities: known[MetaKey.ClientCapabilities], logThreshold };
}

function unsupportedVersion(requested: string): never {
  throw new McpError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", { supported: ALL_SUPPORTED_VERSIONS, requested: cutText(requested, 64) });
}

/** `_meta` that failed the fast check: zod's reading of it, or the -32602 listing each issue. */
function requiredMeta(meta: unknown): RequiredMetaShape {
  const parsed = RequiredMeta.safeParse(meta);
  if (parsed.success) return parsed.data;
  throw McpError.invalidParams(
    `Invalid params: _meta must carry "${MetaKey.ProtocolVersion}" and "${MetaKey.ClientCapabilities}"`,
    parsed.error.issues.map((i) => ({ path: ["_meta", ...i.path.map(String)], message: i.message })),
  );
}

/** Whether a 2026-07-28 request of `method` is served here: a method of the era's table, or the listen stream. */
export function servesMethod(method: string): boolean {
  return method === LISTEN_METHOD || Object.hasOwn(STATELESS_ERA_METHODS, method);
}

/**
 * A mirrored header sent on more than one line: Fetch joins the lines with ", ", so "us" and "eu"
 * would compare as "us, eu" and match a body value of that text, while a gateway acts on one line
 * (§server validation: header and body must agree). The front under `npm start` and the node
 * adapter name such headers (lib/http/trusted-host.mjs); other hosts join them unseen.
 */
function checkSingleLines(request: Request): void {
  const repeated = request.headers.get(repeatedHeadersHeader());
  if (repeated === null) return;
  for (const name of repeated.split(",")) {
    if (name === Header.ProtocolVersion || name === Header.Method || name === Header.Name || name.startsWith(PARAM_HEADER_PREFIX)) {
      throw mismatch(`the ${cutText(name, 64)} header is sent more than once`);
    }
  }
}

function checkMethodHeaders(request: Request, message: JsonRpcRequest, registry: Registry): void {
  checkSingleLines(request);
  const method = request.headers.get(Header.Method);
  if (method === null) throw mismatch("the Mcp-Method header is required");
  // Values are case-sensitive: "TOOLS/LIST" is not "tools/list".
  if (method.trim() !== message.method) throw mismatch(`Mcp-Method "${method.trim().slice(0, 64)}" does not match the body's "${cutText(message.method, 64)}"`);

  const source = ownEntry(NAME_SOURCE, message.method);
  const rawName = request.headers.get(Header.Name);
  if (!source) {
    // A name the body does not carry cannot match it (§server validation): an intermediary
    // reading it would act on a target this request does not have. A method this server does not
    // serve is left to the dispatcher's 404 -32601, which the transport requires for it.
    if (rawName !== null && servesMethod(message.method)) throw mismatch(`Mcp-Name is sent, but ${cutText(message.method, 64)} names no target`);
    return;
  }
  const bodyName = message.params?.[source];
  if (rawName === null) throw mismatch(`the Mcp-Name header is required for ${message.method}`);
  const name = decodeHeaderValue(rawName);
  if (name === undefined) throw mismatch("Mcp-Name is neither visible ASCII nor valid Base64 (=?base64?…?= form)");
  if (typeof bodyName !== "string" || name !== bodyName) throw mismatch("Mcp-Name does not match the body");

  if (message.method === "tools/call") checkParamHeaders(request, bodyName, message.params?.arguments, registry);
}

/** `x-mcp-header` parameters (server/tools §x-mcp-header): every one with a value must be mirrored exactly. */
function checkParamHeaders(request: Request, toolName: string, args: unknown, registry: Registry): void {
  const tool = registry.getTool(toolName);
  if (!tool || tool.headerParams.length === 0) return;
  const values = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  for (const param of tool.headerParams) {
    let value: unknown = values;
    for (const key of param.path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    const raw = request.headers.get(`${PARAM_HEADER_PREFIX}${param.header}`);
    if (value === undefined || value === null) {
      if (raw !== null) throw mismatch(`Mcp-Param-${param.header} is sent but the argument is absent`);
      continue;
    }
    if (raw === null) throw mismatch(`the Mcp-Param-${param.header} header is required when "${param.path.join(".")}" is set`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) throw mismatch(`Mcp-Param-${param.header} is neither visible ASCII nor valid Base64 (=?base64?…?= form)`);
    if (!headerMatches(decoded, value)) throw mismatch(`Mcp-Param-${param.header} does not match the argument`);
  }
}
