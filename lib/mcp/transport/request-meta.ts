import { McpError } from "../../jsonrpc";
import type { RequestMeta } from "../runtime/handler-context";

/**
 * The request's `_meta` as handlers see it. The schema of every revision makes `_meta` an object
 * (basic/index "_meta") whose `progressToken` is a string or an integer (ProgressToken's
 * `"type": ["string", "integer"]`; 1.5 would be echoed in notifications no schema allows):
 * anything else is -32602, not a request run as if it had none.
 */
export function readRequestMeta(params: Record<string, unknown> | undefined): RequestMeta {
  const meta = params?._meta;
  if (meta === undefined) return {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw McpError.invalidParams("Invalid params: _meta must be an object", [{ path: ["_meta"], message: "Expected object" }]);
  }
  const m = meta as RequestMeta;
  if (m.progressToken !== undefined && typeof m.progressToken !== "string" && !Number.isInteger(m.progressToken)) {
    throw McpError.invalidParams("Invalid params: _meta.progressToken must be a string or an integer", [
      { path: ["_meta", "progressToken"], message: "Expected string or integer" },
    ]);
  }
  return m;
}
