import { z, type ZodType } from "zod";
import { ErrorCode } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import type { ElicitParams, ElicitResult } from "./client-requests";
import { checkArguments, describeIssues } from "./validate";

/**
 * An accepted form answer checked against the form the server asked with: "Servers SHOULD
 * validate received data matches the requested schema" (client/elicitation §security). Only the
 * client's word says the content fits; a handler reading `content.confirm` must not have to
 * check that it is a boolean. The content is held to what every client string is held to as well
 * (no control characters, no lone surrogates: validate.ts). A misfit is -32602, as any other
 * malformed answer (handler-context.ts).
 */
export function checkElicitAnswer(params: ElicitParams, answer: ElicitResult): ElicitResult {
  if (answer.action !== "accept" || params.mode === "url") return answer;
  const checked = checkArguments(schemaOf(params.requestedSchema), answer.content ?? {});
  if (checked.success) return answer;
  throw new ProtocolError(ErrorCode.InvalidParams, `The client's answer to elicitation/create does not fit the requested schema: ${describeIssues(checked.issues)}`, {
    issues: checked.issues,
  });
}

/** Forms are constants of their tools: each converted once (zod reads the restricted JSON Schema subset forms use). */
const schemas = new WeakMap<object, ZodType>();

function schemaOf(requested: object): ZodType {
  let schema = schemas.get(requested);
  if (!schema) {
    schema = z.fromJSONSchema(requested as Parameters<typeof z.fromJSONSchema>[0]);
    schemas.set(requested, schema);
  }
  return schema;
}
