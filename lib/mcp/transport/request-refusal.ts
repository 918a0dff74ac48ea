import { McpError, type JsonRpcId } from "../../jsonrpc";

/**
 * The refusal of the one request a POST carried (its authorization, its rate budget, its version
 * header): answered with that request's id, as every error response must be (basic §responses:
 * "the same ID as the request"), not with the null of a body nobody could read.
 */
export class RequestRefusal extends Error {
  override readonly name = "RequestRefusal";

  constructor(
    readonly refused: McpError,
    readonly id: JsonRpcId,
  ) {
    super(refused.message, { cause: refused });
  }
}

/** Rethrows `thrown` as the refusal of request `id` when it is an McpError; anything else as it is. */
export function rethrowAsRefusalOf(id: JsonRpcId, thrown: unknown): never {
  throw thrown instanceof McpError ? new RequestRefusal(thrown, id) : thrown;
}
