import { describe, expect, inject, it } from "vitest";
import { ERAS, eraClient } from "../support/both-eras";
import { JSON_AND_SSE, post } from "../support/mcp-http";

/**
 * Issue 19: names a client chooses are looked up as own entries only. `constructor`, `__proto__`
 * and `toString` live on every object's prototype; as a theme, a method, a completion argument or
 * a Mcp-Name target they must be unknown like any other name (docs/errors.md).
 */
const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

type Json = Record<string, unknown>;
const errorOf = (m: Json | undefined) => m?.error as { code: number } | undefined;

describe.each(ERAS)("in %s", (era) => {
  const endpoint = () => `${inject("statefulUrl")}/api/mcp`;

  it("worldcrafter://themes/<prototype name> is an unknown resource, not Object's function", async () => {
    const client = await eraClient(endpoint(), era);
    for (const name of PROTOTYPE_NAMES) {
      const r = await client.request("resources/read", { uri: `worldcrafter://themes/${name}` });
      expect(r.text).not.toContain("native code");
      // 2026-07-28 answers a missing resource with -32602 (docs/errors.md, the 2026-07-28 era).
      expect(errorOf(r.message)?.code, `${name}: ${r.text}`).toBe(era === "2025-11-25" ? -32002 : -32602);
    }
  });

  it("completion of an argument named like a prototype key has no values", async () => {
    const client = await eraClient(endpoint(), era);
    for (const name of PROTOTYPE_NAMES) {
      const r = await client.request("completion/complete", { ref: { type: "ref/resource", uri: "worldcrafter://themes/{theme}" }, argument: { name, value: "" } });
      expect(r.message?.result, `${name}: ${r.text}`).toMatchObject({ completion: { values: [] } });
    }
  });
});

describe("a method named like a prototype key is an unknown method", () => {
  it("2026-07-28: 404 with -32601 (not a 400 header mismatch)", async () => {
    for (const method of PROTOTYPE_NAMES) {
      const r = await post(`${inject("statefulUrl")}/api/mcp`, {
        jsonrpc: "2.0",
        id: 1,
        method,
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }, { accept: JSON_AND_SSE, "mcp-protocol-version": "2026-07-28", "mcp-method": method });
      expect(r.status, `${method}: ${r.text}`).toBe(404);
      expect(errorOf(r.json as Json)?.code).toBe(-32601);
    }
  });

  it("2025-11-25: -32601 inside a session", async () => {
    const client = await eraClient(`${inject("statefulUrl")}/api/mcp`, "2025-11-25");
    for (const method of PROTOTYPE_NAMES) {
      const r = await client.request(method);
      expect(errorOf(r.message)?.code, `${method}: ${r.text}`).toBe(-32601);
    }
  });
});
