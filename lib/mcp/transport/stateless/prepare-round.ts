import type { JsonRpcRequest } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import type { ServerRequestMethod } from "../../runtime/client-requests";
import { ownEntry } from "../../protocol/own-property";
import type { RequiredCapability } from "../../protocol/client-capabilities";
import { ProtocolError } from "../../protocol/protocol-error";
import type { ClientAsker } from "../post-exchange";
import { InputRound } from "./input-round";
import type { RequestBinding, RequestStateCodec } from "./request-state";

/** Requests that may answer with an InputRequiredResult (basic/patterns/mrtr). */
const MAY_ASK: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The run state of a request that may ask the client: the answers it brings, its round and what a
 * requestState binds. The round and the binding are made when first needed: most calls never
 * ask, and a trivial tools/call should not pay for either (bench/PROFILING.md, round 12).
 */
export class Prepared implements ClientAsker {
  private made: InputRound | undefined;

  constructor(
    private readonly message: JsonRpcRequest,
    private readonly target: "name" | "uri",
    private readonly subject: string | undefined,
    private readonly given: Readonly<Record<string, unknown>>,
  ) {}

  /** The round the handler asks in. */
  get round(): InputRound {
    this.made ??= new InputRound(this.given);
    return this.made;
  }

  /** The handler asked something the client has not answered yet. */
  get needsInput(): boolean {
    return this.made !== undefined && this.made.needsInput;
  }

  /** What a requestState issued for this request is bound to (request-state.ts). */
  get binding(): RequestBinding {
    const { message, target } = this;
    const params = message.params ?? {};
    const value = params[target];
    return {
      method: message.method,
      target: typeof value === "string" ? value : "",
      args: message.method === "resources/read" ? null : (params.arguments ?? {}),
      subject: this.subject,
    };
  }

  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<unknown> {
    return this.round.request(method, params, signal, key);
  }

  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error {
    return this.round.missingCapability(required, method);
  }

  cannotAsk(): undefined {
    return undefined;
  }
}

/**
 * The answers a retried request brings (inputResponses, and those sealed in its requestState).
 * Synchronous unless a requestState must be verified (the spent-nonce store may be remote).
 */
export function prepareRound(
  states: RequestStateCodec,
  message: JsonRpcRequest,
  auth: AuthInfo | undefined,
): Prepared | undefined | Promise<Prepared | undefined> {
  const target = ownEntry(MAY_ASK, message.method);
  if (!target) return undefined;
  const params = message.params ?? {};
  const responses = params.inputResponses;
  if (responses !== undefined && responses !== null && (typeof responses !== "object" || Array.isArray(responses))) {
    throw new ProtocolError(-32602, "Invalid params: inputResponses must be an object keyed by input request");
  }
  // Unknown keys are ignored by construction: only the questions the handler asks are looked up.
  const given = (responses as Record<string, unknown> | null | undefined) ?? NO_ANSWERS;
  const state = params.requestState;
  // Answers come to questions this server asked, and every InputRequiredResult it sends carries a
  // requestState the retry echoes. Without one, nothing was asked: inputResponses are information
  // it does not recognise and are ignored (basic/patterns/mrtr), so a client cannot answer a
  // confirmation it was never shown by guessing its key (outside audit, 2026-11-27).
  if (state === undefined) return new Prepared(message, target, auth?.subject, NO_ANSWERS);
  if (typeof state !== "string") throw new ProtocolError(-32602, "Invalid params: requestState must be a string");
  return states.verify(state, new Prepared(message, target, auth?.subject, given).binding).then((checked) => {
    if (!checked.ok) throw new ProtocolError(-32602, `Invalid requestState: ${checked.reason}`);
    // Only answers to the questions that round asked; the answers sealed in earlier rounds stand.
    const answered: Record<string, unknown> = {};
    for (const key of checked.asked) if (Object.hasOwn(given, key)) answered[key] = given[key];
    return new Prepared(message, target, auth?.subject, { ...answered, ...checked.answers });
  });
}
