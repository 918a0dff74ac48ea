import { z, type ZodType } from "zod";
import { ErrorCode } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import type { ElicitParams, ElicitResult } from "./client-requests";
import { checkArguments, describeIssues, type IssueReport } from "./validate";

/**
 * An accepted form answer that does not fit the form asked: -32602, as any other malformed answer
 * (handler-context.ts), unless the handler has a safe reading of it (delete_world: not confirmed).
 */
export class ElicitAnswerMisfit extends ProtocolError {
  constructor(issues: readonly IssueReport[]) {
    super(ErrorCode.InvalidParams, `The client's answer to elicitation/create does not fit the requested schema: ${describeIssues(issues)}`, { issues });
  }
}

/** Checks an answer to one form; made before the form is sent, so a form that cannot be checked fails before anyone is asked. */
export type ElicitAnswerCheck = (answer: ElicitResult) => ElicitResult;

const noCheck: ElicitAnswerCheck = (answer) => answer;

/**
 * The check of the answer to `params`: "Servers SHOULD validate received data matches the
 * requested schema" (client/elicitation §security). Only the client's word says the content fits;
 * a handler reading `content.confirm` must not have to check that it is a boolean. The content is
 * held to what every client string is held to as well (no control characters, no lone surrogates:
 * validate.ts). URL forms and answers other than accept carry no content.
 */
export function elicitAnswerCheck(params: ElicitParams): ElicitAnswerCheck {
  if (params.mode === "url") return noCheck;
  const schema = schemaOf(params.requestedSchema);
  const asked = new Set(Object.keys((params.requestedSchema as { properties?: object }).properties ?? {}));
  return (answer) => {
    if (answer.action !== "accept") return answer;
    const checked = checkArguments(schema, answer.content ?? {});
    if (!checked.success) throw new ElicitAnswerMisfit(checked.issues);
    // Fields the form did not ask for are dropped: the handler reads the form it sent, nothing
    // a client added beside it (outside probe, 2026-11-29: an unasked nested object came through).
    const content = answer.content ?? {};
    if (Object.keys(content).every((key) => asked.has(key))) return answer;
    return { ...answer, content: Object.fromEntries(Object.entries(content).filter(([key]) => asked.has(key))) };
  };
}

/** Forms are constants of their tools: each converted once (zod reads the restricted JSON Schema subset forms use). */
const schemas = new WeakMap<object, ZodType>();

function schemaOf(requested: object): ZodType {
  let schema = schemas.get(requested);
  if (!schema) {
    try {
      schema = z.fromJSONSchema(requested as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (thrown) {
      // The tool's own form is broken (a bad pattern, an external $ref): a server bug, raised
      // before the question is sent rather than after the person has answered it.
      throw new Error(`This tool's elicitation form cannot be checked: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    }
    schemas.set(requested, schema);
  }
  return schema;
}
