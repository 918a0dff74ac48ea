import type { JsonRpcRequest } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import { ownEntry } from "../../protocol/own-property";
import { ProtocolError } from "../../protocol/protocol-error";
import { InputRound } from "./input-round";
import type { RequestBinding, RequestStateCodec } from "./request-state";

/** The run state of a request that may ask the client: its round and what a requestState binds. */
export interface Prepared {
  round: InputRound;
  binding: RequestBinding;
}

/** Requests that may answer with an InputRequiredResult (basic/patterns/mrtr). */
const MAY_ASK: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * The answers a retried request brings (inputResponses, and those sealed in its requestState).
 * Synchronous unless a requestState must be verified (the spent-nonce store may be remote).
 */
export function prepareRound(
  states: RequestStateCodec,
  message: JsonRpcRequest,
  auth: AuthInfo | undefined,
): Prepared | undefined | Promise<Prepared | undefined> {
  const source = ownEntry(MAY_ASK, message.method);
  if (!source) return undefined;
  const params = message.params ?? {};
  const binding: RequestBinding = {
    method: message.method,
    target: typeof params[source] === "string" ? (params[source] as string) : "",
    args: message.method === "resources/read" ? null : (params.arguments ?? {}),
    subject: auth?.subject,
  };
  const responses = params.inputResponses;
  if (responses !== undefined && responses !== null && (typeof responses !== "object" || Array.isArray(responses))) {
    throw new ProtocolError(-32602, "Invalid params: inputResponses must be an object keyed by input request");
  }
  // Unknown keys are ignored by construction: only the questions the handler asks are looked up.
  const given = (responses as Record<string, unknown> | null | undefined) ?? {};
  const state = params.requestState;
  if (state === undefined) return { round: new InputRound(given), binding };
  if (typeof state !== "string") throw new ProtocolError(-32602, "Invalid params: requestState must be a string");
  return states.verify(state, binding).then((checked) => {
    if (!checked.ok) throw new ProtocolError(-32602, `Invalid requestState: ${checked.reason}`);
    return { round: new InputRound({ ...checked.answers, ...given }), binding };
  });
}
