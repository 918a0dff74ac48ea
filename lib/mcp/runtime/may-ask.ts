import { ErrorCode, McpError } from "../../jsonrpc";
import { declares, requiredCapability, revisionHas, type ServerRequestMethod } from "../protocol/client-capabilities";
import { hasElicitationModes } from "../protocol/protocol-versions";
import type { CallScope } from "./handler-context";

/**
 * The one gate for server → client requests: may this call ask the client this question now?
 * Every way of asking goes through it (a 2025 SSE stream, a 2026-07-28 input round, a task), and
 * handlers ask it beforehand through `ctx.canAsk` to choose their fallback. Undefined when the
 * question may be sent; otherwise the error it fails with, before anything reaches the wire:
 *
 * 1. the negotiated revision has no such request (elicitation before 2025-06-18, URL mode before
 *    2025-11-25: client/elicitation);
 * 2. the client did not declare the capability, or the elicitation mode (lifecycle §capabilities;
 *    client/elicitation §capabilities: servers MUST NOT send a mode the client does not support);
 * 3. the call's channel cannot carry it now, for the transport's own reason (before the client's
 *    notifications/initialized, basic/lifecycle §initialization; an answer that cannot be an SSE
 *    stream, basic/transports).
 */
export function refusalToAsk(scope: CallScope, method: ServerRequestMethod, params: object): Error | undefined {
  const required = requiredCapability(method, params);
  if (!revisionHas(scope.protocolVersion, required)) {
    const what = required.mode === "url" ? `${method} in url mode` : method;
    return new McpError(ErrorCode.InvalidRequest, `Protocol revision ${scope.protocolVersion} has no ${what}: the client cannot be asked`);
  }
  if (!declares(scope.clientCapabilities, scope.protocolVersion, required)) return scope.channel.missingCapability(required, method);
  return scope.channel.cannotAsk(method);
}

/**
 * The question as the negotiated revision defines it. 2025-06-18's ElicitRequest params are
 * `message` and `requestedSchema` only: a form's `mode` (2025-11-25) is left out there.
 */
export function questionAt(version: string, method: ServerRequestMethod, params: object): Record<string, unknown> {
  const question = params as Record<string, unknown>;
  if (method !== "elicitation/create" || hasElicitationModes(version) || !Object.hasOwn(question, "mode")) return question;
  const { mode: _mode, ...form } = question;
  return form;
}
