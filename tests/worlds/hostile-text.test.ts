import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { ERAS, eraClient, toolResult, type EraClient } from "../support/both-eras";
import { invalidArgumentOf } from "../support/tool-errors";

/**
 * Issue 19, what an outside attack run found in the data path, in both protocol eras against the
 * real server on PostgreSQL:
 * - LIKE wildcards: `%`, `_` and a trailing `\` are plain characters in every search, filter and
 *   name lookup (they matched everything, or made PostgreSQL fail with 22025);
 * - control characters: a NUL (PostgreSQL 22021) or any other C0, DEL or C1 control in a string argument is
 *   refused at the edge (a tool's arguments with an invalid_argument tool error, other params with
 *   -32602); multi-line text keeps tab and newline;
 * - unexpected errors answer a generic message with a reference id, never the error's text.
 */
const tag = randomUUID().slice(0, 6);
const ODD_NAME = `Ledger 50%_off\\ ${tag}`;
const ODD_THEME = `odd%theme_${tag}`;
const PLAIN_NAME = `Plainfield ${tag}`;

type Json = Record<string, unknown>;
const textOf = (r: ReturnType<typeof toolResult>) => r?.content[0]?.text ?? "";
const errorOf = (m: Json | undefined) => m?.error as { code: number; message: string } | undefined;
/** The message of an invalid_argument isError result; undefined for any other answer. */
const invalidArgumentMessage = (m: Json | undefined) => invalidArgumentOf(toolResult(m))?.message;

describe.each(ERAS)("in %s", (era) => {
  const endpoint = () => `${inject("statefulUrl")}/api/mcp`;
  let client: EraClient;

  beforeAll(async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject(`hostile-${era.slice(0, 4)}`));
    client = await eraClient(endpoint(), era, token);
    // The odd world first, the plain one newest: a wildcard that matched would find the plain one.
    for (const world of [{ name: ODD_NAME, theme: ODD_THEME, description: "Counts coins.\n\tTwice." }, { name: PLAIN_NAME, theme: "fantasy", description: "Quiet hills." }]) {
      const created = await client.request("tools/call", { name: "create_world", arguments: world });
      expect(toolResult(created.message)?.isError, created.text).toBeFalsy();
    }
  });

  const call = async (name: string, args: Json) => {
    const r = await client.request("tools/call", { name, arguments: args });
    expect(r.status, r.text).toBe(200);
    return r.message;
  };
  const worldsOf = (m: Json | undefined) => ((toolResult(m)?.structuredContent?.worlds ?? []) as { name: string }[]).map((w) => w.name);

  describe("LIKE wildcards are plain characters", () => {
    it("search for % or _ finds only records that contain that character", async () => {
      for (const query of ["%", "_"]) {
        const m = await call("search", { query });
        expect(toolResult(m)?.isError, JSON.stringify(m)).toBeFalsy();
        const results = (JSON.parse(textOf(toolResult(m))) as { results: { title: string }[] }).results;
        expect(results.some((r) => r.title.includes(PLAIN_NAME)), query).toBe(false);
        expect(results.some((r) => r.title.includes(ODD_NAME)), query).toBe(true);
      }
    });

    it("list_worlds' exact theme filter: % matches no theme; the odd theme matches itself only", async () => {
      expect(worldsOf(await call("list_worlds", { theme: "%" }))).toEqual([]);
      expect(worldsOf(await call("list_worlds", { theme: ODD_THEME }))).toEqual([ODD_NAME]);
      expect(worldsOf(await call("list_worlds", { theme: ODD_THEME.toUpperCase() }))).toEqual([ODD_NAME]);
    });

    it("a trailing backslash is a character, not a broken pattern (no 22025)", async () => {
      const m = await call("list_worlds", { nameContains: "\\" });
      expect(toolResult(m)?.isError, JSON.stringify(m)).toBeFalsy();
      expect(worldsOf(m)).toEqual([ODD_NAME]);
      const search = await call("search", { query: `off\\` });
      expect(toolResult(search)?.isError, JSON.stringify(search)).toBeFalsy();
    });

    it("a prompt's world named % resolves to no world; the odd name resolves to itself", async () => {
      const wildcard = await client.request("prompts/get", { name: "develop-character", arguments: { world: "%" } });
      expect(JSON.stringify(wildcard.message)).not.toContain(PLAIN_NAME);
      const exact = await client.request("prompts/get", { name: "develop-character", arguments: { world: ODD_NAME } });
      expect(errorOf(exact.message), exact.text).toBeUndefined();
      expect(JSON.stringify(exact.message)).toContain(JSON.stringify(ODD_NAME).slice(1, -1));
    });
  });

  // A tool's arguments are refused with an invalid_argument tool error (server/tools §error
  // handling, 2025-11-25 on); any other request's params with -32602.
  describe("control characters are refused at the edge (tool error / -32602)", () => {
    it("a NUL, an escape or a bell in a name is an invalid_argument tool error naming the field, not a database error", async () => {
      for (const name of ["nul\u0000name", "esc\u001b[31m", "bell\u0007"]) {
        const r = await client.request("tools/call", { name: "create_world", arguments: { name, theme: "fantasy" } });
        expect(r.status, r.text).toBe(200);
        expect(invalidArgumentMessage(r.message), r.text).toBe("Invalid arguments for tool create_world: name: Control characters are not allowed");
      }
    });

    // Outside audit (2026-11-27): NEL, the 8-bit CSI and the Unicode line separators were stored in names.
    it("C1 controls (NEL, CSI), DEL and the line and paragraph separators are refused in a name; C1 in prose too", async () => {
      for (const name of ["A\u0085B", "A\u009b2J", "A\u007fB", "A\u2028B", "A\u2029B"]) {
        const r = await client.request("tools/call", { name: "create_world", arguments: { name, theme: "fantasy" } });
        expect(invalidArgumentMessage(r.message), `${JSON.stringify(name)} ${r.text}`).toBe("Invalid arguments for tool create_world: name: Control characters are not allowed");
      }
      const csi = await client.request("tools/call", { name: "create_world", arguments: { name: `C1 ${tag}`, theme: "fantasy", description: "x\u009b2Jy" } });
      expect(invalidArgumentMessage(csi.message), csi.text).toBe("Invalid arguments for tool create_world: description: Control characters are not allowed");
      // Prose may break lines however it likes: U+2028 is text there.
      const prose = await call("create_world", { name: `Separated ${tag}`, theme: "fantasy", description: "one\u2028two" });
      expect(toolResult(prose)?.isError, JSON.stringify(prose)).toBeFalsy();
    });

    // Outside audit: "evil\u202Egpj.exe" was stored and read as "evilexe.jpg".
    it("bidirectional overrides and isolates are refused in a name; marks, joiners and right-to-left letters are kept", async () => {
      for (const name of ["evil\u202Egpj.exe", "a\u202Ab", "a\u202Db", "a\u2066b\u2069", "a\u2067b", "a\u2068b"]) {
        const r = await client.request("tools/call", { name: "create_world", arguments: { name, theme: "fantasy" } });
        expect(invalidArgumentMessage(r.message), `${JSON.stringify(name)} ${r.text}`).toBe(
          "Invalid arguments for tool create_world: name: Bidirectional control characters (U+202A-U+202E, U+2066-U+2069) are not allowed",
        );
      }
      for (const name of [`عالم ${tag}`, `\u200fשלום\u200e ${tag}`, `👨\u200d👩\u200d👧 ${tag}`]) {
        const made = await call("create_world", { name, theme: "fantasy" });
        expect(toolResult(made)?.isError, `${JSON.stringify(name)} ${JSON.stringify(made)}`).toBeFalsy();
      }
    });

    it("single-line fields refuse a newline; prose keeps tab and newline", async () => {
      const r = await client.request("tools/call", { name: "create_world", arguments: { name: "two\nlines", theme: "fantasy" } });
      expect(invalidArgumentMessage(r.message), r.text).toMatch(/^Invalid arguments for tool create_world: name: /);
      const prose = await call("create_world", { name: `Prose ${tag}`, theme: "fantasy", description: "line one\n\tline two" });
      expect(toolResult(prose)?.isError, JSON.stringify(prose)).toBeFalsy();
    });

    it("every single-line field, not only the data tools' names: outline names, search queries, fetch ids, file names, prompt arguments", async () => {
      const cases: [string, Json, string][] = [
        ["draft_world_outline", { name: "two\n\nlines" }, "name"],
        ["draft_world_outline", { name: "a\tb" }, "name"],
        ["search", { query: "a\nb" }, "query"],
        ["fetch", { id: "world:abc\ndef" }, "id"],
        ["list_worlds", { nameContains: "a\rb" }, "nameContains"],
        ["import_world", { file: { download_url: "https://files.example/w.md", file_name: "w\n.md" } }, "file.file_name"],
      ];
      for (const [tool, args, field] of cases) {
        const r = await client.request("tools/call", { name: tool, arguments: args });
        expect(invalidArgumentMessage(r.message), `${tool} ${r.text}`).toBe(`Invalid arguments for tool ${tool}: ${field}: Control characters are not allowed`);
      }
      const prompt = await client.request("prompts/get", { name: "develop-character", arguments: { world: "w\nx" } });
      expect(errorOf(prompt.message)?.code, prompt.text).toBe(-32602);
    });

    it("search, prompt arguments, completions and resource URIs refuse them too", async () => {
      const search = await client.request("tools/call", { name: "search", arguments: { query: "a\u0000" } });
      expect(invalidArgumentMessage(search.message), search.text).toBe("Invalid arguments for tool search: query: Control characters are not allowed");
      const prompt = await client.request("prompts/get", { name: "develop-character", arguments: { world: "w\u0000" } });
      expect(errorOf(prompt.message)?.code, prompt.text).toBe(-32602);
      const complete = await client.request("completion/complete", { ref: { type: "ref/prompt", name: "develop-character" }, argument: { name: "world", value: "\u0000" } });
      expect(errorOf(complete.message)?.code, complete.text).toBe(-32602);
      const read = await client.request("resources/read", { uri: "world://%00" });
      expect(errorOf(read.message)?.code, read.text).toBe(-32602);
    });
  });

  // Outside audit (2026-11-28): a hand-made cursor whose id held a NUL reached PostgreSQL (22021)
  // and came back as an internal error, logged with its stack.
  it.each([
    ["a time no row can have (year 0)", ["0000-01-01T00:00:00.000Z", "a"]],
    ["a NUL in its id", ["2026-11-27T23:34:29.355Z", "\u0000"]],
    ["a lone surrogate in its id", ["2026-11-27T23:34:29.355Z", "a\ud800"]],
  ])("a list cursor made by hand with %s is invalid_argument, not a database error", async (_what, key) => {
    const cursor = Buffer.from(JSON.stringify(key)).toString("base64url");
    const world = toolResult(await call("list_worlds", { limit: 1 }))?.structuredContent?.worlds as { id: string }[];
    for (const tool of ["list_worlds", "list_characters", "list_locations"]) {
      const args = tool === "list_worlds" ? { cursor } : { worldId: world[0]?.id, cursor };
      const r = await client.request("tools/call", { name: tool, arguments: args });
      expect(r.text, tool).toContain("Invalid cursor");
      expect(r.text, tool).not.toContain("Internal error");
    }
  });

  // Outside audit (2026-11-28): summaries and snippets were cut at a fixed length, and an emoji
  // across the cut left half of it, a lone surrogate, in the answer.
  describe("excerpts end on a whole character", () => {
    it("list_worlds' summary and search's snippet never split an emoji", async () => {
      const name = `Emoji cut ${tag}`;
      // 158 + the emoji's two code units: list_worlds cuts its summary at 159, search its snippet at 199.
      for (const lead of [158, 198]) {
        const created = await call("create_world", { name: `${name} ${lead}`, description: `${"a".repeat(lead)}😀${"b".repeat(60)}` });
        expect(toolResult(created)?.isError, JSON.stringify(created)).toBeFalsy();
      }
      const listed = (toolResult(await call("list_worlds", { nameContains: name }))?.structuredContent?.worlds ?? []) as { summary: string }[];
      expect(listed.length).toBe(2);
      for (const world of listed) {
        expect(world.summary.isWellFormed(), JSON.stringify(world.summary.slice(-4))).toBe(true);
        expect(world.summary.endsWith("…")).toBe(true);
      }
      const found = JSON.parse(textOf(toolResult(await call("search", { query: name })))) as { results: { snippet: string }[] };
      expect(found.results.length).toBeGreaterThan(0);
      for (const result of found.results) expect(result.snippet.isWellFormed(), JSON.stringify(result.snippet.slice(-4))).toBe(true);
    });
  });

  describe("unexpected errors reach the client as a reference only", () => {
    it("a handler's unexpected error answers isError with a reference id, not its text", async () => {
      const fixtures = await eraClient(`${inject("statefulUrl")}/api/conformance/mcp`, era);
      const r = await fixtures.request("tools/call", { name: "test_throw", arguments: { message: "Invalid `prisma.world.findMany()` invocation: secret" } });
      const result = toolResult(r.message);
      expect(result?.isError, r.text).toBe(true);
      expect(textOf(result)).toMatch(/^Internal error \(reference [0-9a-f]{8}\)/);
      expect(r.text).not.toContain("prisma");
      expect(r.text).not.toContain("secret");
    });
  });
});
