import { describe, expect, it } from "vitest";
import { classifyMessage, envelopeBytes, envelopeStream, jsonDepthExceeds, preserialize, serializedBytesOf } from "../../lib/jsonrpc";
import { duplicateMemberName, hasDuplicateMembers } from "../../lib/jsonrpc/duplicate-members";
import { compileUriTemplate } from "../../lib/mcp/registry/uri-template";
import { decodeCursor, encodeCursor } from "../../lib/mcp/registry/pagination";
import { decodeCursor as decodeRowCursor, encodeCursor as encodeRowCursor } from "../../lib/worlds/data/cursor";

describe("JSON-RPC envelope classification", () => {
  it("tells requests, notifications and responses apart", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping" }).kind).toBe("request");
    expect(classifyMessage({ jsonrpc: "2.0", method: "notifications/initialized" }).kind).toBe("notification");
    expect(classifyMessage({ jsonrpc: "2.0", id: "s-1", result: {} }).kind).toBe("response");
    expect(classifyMessage({ jsonrpc: "2.0", id: "s-1", error: { code: 1, message: "x" } }).kind).toBe("response");
  });

  it("refuses ids JSON cannot echo exactly, with id null", () => {
    for (const id of [1.5, 2 ** 53 + 10, null, {}, true, "x".repeat(257)]) {
      const c = classifyMessage({ jsonrpc: "2.0", id, method: "ping" });
      expect(c).toMatchObject({ kind: "invalid", id: null, error: { code: -32600 } });
    }
  });

  it("takes an error response that names no request as a response with id null, never as a missing method", () => {
    const error = { code: -32700, message: "x" };
    // JSON-RPC 2.0 §5: id null when the request's id could not be read.
    expect(classifyMessage({ jsonrpc: "2.0", id: null, error })).toEqual({ kind: "response", message: { jsonrpc: "2.0", id: null, error } });
    // 2025-11-25 schema: JSONRPCErrorResponse.id is optional; the era decides (idOmitted).
    expect(classifyMessage({ jsonrpc: "2.0", error })).toEqual({ kind: "response", message: { jsonrpc: "2.0", id: null, error }, idOmitted: true });
    // Still refused: a result without an id, an id-less error that is not one.
    expect(classifyMessage({ jsonrpc: "2.0", result: {} })).toMatchObject({ kind: "invalid", id: null });
    expect(classifyMessage({ jsonrpc: "2.0", id: null, result: {} })).toMatchObject({ kind: "invalid", id: null });
    expect(classifyMessage({ jsonrpc: "2.0", error: { message: "no code" } })).toMatchObject({ kind: "invalid", id: null });
    expect(classifyMessage({ jsonrpc: "2.0", id: null, error, result: {} })).toMatchObject({ kind: "invalid", id: null });
  });

  it("echoes a readable id on other envelope errors", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: 9, method: "x", params: [1] })).toMatchObject({ kind: "invalid", id: 9 });
    expect(classifyMessage({ jsonrpc: "1.0", id: 9, method: "x" })).toMatchObject({ kind: "invalid", id: 9 });
  });
});

describe("helpers", () => {
  it("duplicate member names: counted without strings, named on a second scan", () => {
    const cases: [string, string | undefined][] = [
      ['{"a":1,"a":2}', "a"],
      ['{"method":"x","m\\u0065thod":"y"}', "method"],
      ['{"x":[1,{"y":1,"y":2}]}', "y"],
      ['{"__proto__":1,"__proto__":2}', "__proto__"],
      ['{"":1,"":2}', ""],
      ['[{"a":1},{"a":2}]', undefined],
      ['{"a":{"b":1},"b":2}', undefined],
      ['{"a":"\\"a\\":","b":["a","a"]}', undefined],
      ['{"a\\\\":":","b":"\\\\"}', undefined],
      ['"x:y"', undefined],
      ["{}", undefined],
    ];
    for (const [text, duplicate] of cases) {
      expect(hasDuplicateMembers(text, JSON.parse(text)), text).toBe(duplicate !== undefined);
      expect(duplicateMemberName(text), text).toBe(duplicate);
    }
  });

  it("measures JSON depth without parsing and ignores brackets inside strings", () => {
    expect(jsonDepthExceeds("[".repeat(65) + "]".repeat(65), 64)).toBe(true);
    expect(jsonDepthExceeds(`{"a":"${"[".repeat(100)}"}`, 64)).toBe(false);
    // Many brackets, little depth: the bracket count alone cannot clear it, the scan does.
    expect(jsonDepthExceeds(`[${"[],".repeat(100)}[]]`, 64)).toBe(false);
    expect(jsonDepthExceeds(`{"a":${"[".repeat(64)}${"]".repeat(64)}}`, 64)).toBe(true);
  });

  it("matches simple and reserved URI template expressions", () => {
    expect(compileUriTemplate("test://template/{id}/data").match("test://template/123/data")).toEqual({ id: "123" });
    expect(compileUriTemplate("test://template/{id}/data").match("test://template/1/2/data")).toBeUndefined();
    expect(compileUriTemplate("file:///{+path}").match("file:///a/b.txt")).toEqual({ path: "a/b.txt" });
  });

  it("round-trips cursors and refuses forged ones", () => {
    expect(decodeCursor(encodeCursor(200))).toBe(200);
    expect(() => decodeCursor("garbage!")).toThrow(/Invalid cursor/);
  });

  it("accepts only the exact text a cursor is issued as, not the many strings base64url decoding forgives", () => {
    expect(encodeCursor(3)).toBe("bzoz");
    expect(decodeCursor("bzoz")).toBe(3);
    // Each decodes leniently to an offset: a trailing character, a foreign one, spaces, padding,
    // other spare bits (o:10 is bzoxMA), a leading zero (o:03, o:00), offset 0 (the first page is
    // asked for without a cursor); and "" decodes to nothing.
    for (const forged of ["bzozx", "bz!oz", "b z o z", "bzoz====", "bzoz=", "bzoxMB", "bzowMw", "bzowMA", "bzow", ""]) {
      expect(() => decodeCursor(forged), forged).toThrow(/Invalid cursor/);
    }
  });
});

describe("the data tools' row cursors (lib/worlds/data/cursor.ts)", () => {
  const SCOPE = ["worlds", "alice", undefined, undefined] as const;
  // The text of a cursor for `time` and `id`, carrying SCOPE's tag (read off a cursor encodeRowCursor issued).
  const tagOf = (cursor: string) => (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as string[])[2];
  const TAG = tagOf(encodeRowCursor({ createdAt: new Date(0), id: "x" }, SCOPE));
  const rowCursor = (time: string, id = "a", tag = TAG) => Buffer.from(JSON.stringify([time, id, tag])).toString("base64url");

  it("take back exactly what they issued, and refuse every other spelling of it", () => {
    const key = { createdAt: new Date("2026-11-26T10:00:00.000Z"), id: "world_abc" };
    const cursor = encodeRowCursor(key, SCOPE);
    expect(decodeRowCursor(cursor, SCOPE)).toEqual(key);
    const forgeries = [
      `${cursor}=`,
      `${cursor}==`,
      `${cursor.slice(0, 4)}!${cursor.slice(4)}`,
      ` ${cursor}`,
      Buffer.from(JSON.stringify(["2026-11-26T10:00:00.000Z", "world_abc", TAG])).toString("base64"),
      rowCursor("2026-11-26T10:00:00Z", "world_abc"),
      // The two-part cursors issued before they carried their list's tag.
      Buffer.from(JSON.stringify(["2026-11-26T10:00:00.000Z", "world_abc"])).toString("base64url"),
      rowCursor("2026-11-26T10:00:00.000Z", "world_abc", `${TAG}x`),
    ];
    for (const forged of forgeries) {
      if (forged === cursor) continue;
      expect(() => decodeRowCursor(forged, SCOPE), forged).toThrow(/Invalid cursor: pass back/);
    }
  });

  it("belong to the list they were issued for: another list, world, filter or user refuses them by name", () => {
    const key = { createdAt: new Date("2026-11-26T10:00:00.000Z"), id: "char_1" };
    const issued = encodeRowCursor(key, ["characters", "alice", "world_a", undefined]);
    expect(decodeRowCursor(issued, ["characters", "alice", "world_a", undefined])).toEqual(key);
    for (const other of [
      ["characters", "alice", "world_b", undefined],
      ["characters", "alice", "world_a", "villain"],
      ["characters", "bob", "world_a", undefined],
      ["locations", "alice", "world_a", undefined, undefined],
      ["worlds", "alice", undefined, undefined],
    ] as const) {
      expect(() => decodeRowCursor(issued, other), other.join("/")).toThrow(/issued for another list .* not this \w+ list/);
    }
  });

  it("refuse a time no row can have: year 0 and years beyond 9999 (PostgreSQL failed the query with 22008)", () => {
    for (const time of ["0000-01-01T00:00:00.000Z", "-000001-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"]) {
      expect(() => decodeRowCursor(rowCursor(time), SCOPE), time).toThrow(/Invalid cursor/);
    }
    for (const time of ["0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) expect(decodeRowCursor(rowCursor(time), SCOPE)?.createdAt.toISOString()).toBe(time);
  });
});

describe("a preserialized page's envelope (lib/jsonrpc/preserialized.ts)", () => {
  const result = preserialize({ tools: [{ name: "é-tool", description: "naïve ✓" }] });
  const read = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

  it("streams the same JSON as serializing the whole response, for string and number ids", async () => {
    const page = serializedBytesOf(result) as Uint8Array;
    for (const id of [7, "a\"b", 0]) {
      const text = new TextDecoder().decode(await read(envelopeStream(id, page)));
      expect(text).toBe(JSON.stringify({ jsonrpc: "2.0", id, result }));
      expect(new TextDecoder().decode(envelopeBytes(id, page))).toBe(text);
    }
  });

  it("hands on the page's shared bytes without detaching or changing them, however often it is read", async () => {
    const page = serializedBytesOf(result) as Uint8Array;
    const before = Uint8Array.from(page);
    // Piped through a transform, as hosts do, and read concurrently.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => read(envelopeStream(i, page).pipeThrough(new TransformStream<Uint8Array, Uint8Array>()))),
    );
    answers.forEach((bytes, i) => expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({ jsonrpc: "2.0", id: i, result }));
    expect(serializedBytesOf(result)).toBe(page);
    expect(page.byteLength).toBe(before.byteLength);
    expect(page).toEqual(before);
  });
});
