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

/** Runs `answer`, turning an McpError it throws (or rejects with) into a RequestRefusal for `id`. */
export function refusingAs(id: JsonRpcId, answer: () => Response | Promise<Response>): Response | Promise<Response> {
  const rethrow = (thrown: unknown): never => {
    throw thrown instanceof McpError ? new RequestRefusal(thrown, id) : thrown;
  };
  try {
    const response = answer();
    return response instanceof Promise ? response.catch(rethrow) : response;
  } catch (thrown) {
    return rethrow(thrown);
  }
}
