import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { newSubject, tokenFor } from "../support/auth";
import { DATABASE_SERVERS } from "../support/servers";
import { connectClient } from "../support/sdk-client";
import { connectModernClient } from "../support/v2-client";
import { downloadLinkKey } from "../../lib/worlds/files/link-key";
import { signDownloadToken, verifyDownloadToken } from "../../lib/worlds/files/download-token";
import { fetchFile } from "../../lib/worlds/files/safe-fetch";

/**
 * Files in and out (issue 24, items 1 and 2), on the real servers over PostgreSQL and PGlite:
 * export_world's signed download links (bytes, headers, and the one 404 for a forged, altered,
 * expired or foreign link), import_world round-trips of both export formats (inline and by
 * file URL), and hostile imports — too large, wrong type, private addresses directly and behind
 * a redirect, malformed files, bad arguments — each refused with nothing written.
 *
 * The shared servers run with MCP_IMPORT_ALLOW_LOOPBACK=1 (tests/support/global-setup.ts), so
 * they may fetch from the small http servers this file starts on 127.0.0.1.
 */

type Json = Record<string, unknown>;
const TEST_SECRET = "test-only-better-auth-secret-0123456789abcdef";

/** A loopback http server answering each path with a handler. */
async function fileServer(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>): Promise<{ url: (path: string) => string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const route = routes[req.url ?? ""];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const serve = (type: string, body: string | Buffer) => (_req: IncomingMessage, res: ServerResponse) =>
  res.writeHead(200, { "content-type": type, "content-length": String(Buffer.byteLength(body)) }).end(body);
const redirect = (location: string) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(302, { location }).end();

describe.each(DATABASE_SERVERS)("on $database", ({ server }) => {
  const url = () => `${server()}/api/mcp`;
  let files: Awaited<ReturnType<typeof fileServer>>;
  let markdownFixture = "";

  beforeAll(async () => {
    files = await fileServer({
      "/world.md": (req, res) => serve("text/markdown; charset=utf-8", markdownFixture)(req, res),
      "/huge.md": serve("text/markdown", Buffer.alloc(2 * 1024 * 1024, 0x61)),
      // No Content-Length: the limit must hold while reading, not only on the header.
      "/huge-chunked.md": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        for (let i = 0; i < 40; i++) res.write(Buffer.alloc(64 * 1024, 0x62));
        res.end();
      },
      "/page.html": serve("text/html", "<!doctype html><h1>hi</h1>"),
      "/image.png": serve("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47])),
      "/to-private": redirect("http://10.0.0.1/world.md"),
      "/to-metadata": redirect("http://169.254.169.254/latest/meta-data/"),
      "/to-mapped": redirect("https://[::ffff:a9fe:a9fe]/latest/meta-data/"),
      "/to-unique-local": redirect("https://[fd00::1]/world.md"),
      "/loop": redirect("/loop"),
      "/hang": () => undefined,
    });
  });
  afterAll(async () => {
    await files?.close();
  });

  async function open(subject = newSubject("files")) {
    const token = await tokenFor(server(), subject);
    const { client } = await connectClient(url(), { token });
    await client.listTools(); // the SDK checks structuredContent against each listed outputSchema
    const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const ok = async (name: string, args: Json) => {
      const r = await call(name, args);
      expect(r.isError, `${name}: ${JSON.stringify(r).slice(0, 400)}`).toBeFalsy();
      return r;
    };
    const refused = async (args: Json) => {
      const r = await call("import_world", args);
      expect(r.isError, JSON.stringify(r).slice(0, 400)).toBe(true);
      return (r.content[0] as { text: string }).text;
    };
    const worldCount = async () => ((await ok("list_worlds", { limit: 50 })).structuredContent!.worlds as Json[]).length;
    return { subject, client, call, ok, refused, worldCount };
  }

  const sc = (r: CallToolResult) => r.structuredContent as Json;

  /** A world with every field set, characters with traits and backstories, and a nested place. */
  async function sampleWorld(ok: Awaited<ReturnType<typeof open>>["ok"]) {
    const tag = Math.random().toString(36).slice(2, 8);
    const world = sc(await ok("create_world", { name: `Isles & <Reefs> ${tag}`, theme: "sea*punk", tone: "wry", description: `Salt [spray](https://example.com) & *foam*.\n\n## not a heading ${tag}` })).world as Json;
    const worldId = world.id as string;
    await ok("create_character", { worldId, name: "Ada", role: "captain", traits: ["bold", "kind, mostly"], backstory: "Born at sea.\n\nRaised by *gulls*." });
    await ok("create_character", { worldId, name: "Bo_b", traits: [], backstory: "" });
    await ok("create_character", { worldId, name: "Cy (the third)", role: "cook", backstory: "### Not a character\n&lt;literal&gt;" });
    // A name ending in the heading's separator dash (outside review: read back as "Ana" / "— hero"; a fuzz's "x( —" / "{").
    await ok("create_character", { worldId, name: "Ana —", role: "hero" });
    await ok("create_character", { worldId, name: "x( —", role: "{" });
    await ok("create_character", { worldId, name: "Dee — of the Dunes" });
    const port = sc(await ok("create_location", { worldId, name: "Port Azure", kind: "city", description: "Walls of glass" })).location as Json;
    const inn = sc(await ok("create_location", { worldId, name: "The Gull", kind: "tavern", parentId: port.id })).location as Json;
    await ok("create_location", { worldId, name: "Cellar", parentId: inn.id });
    await ok("create_location", { worldId, name: "Lighthouse", kind: "tower", description: "Tall" });
    return worldId;
  }

  /** Everything a world is, as the read tools give it (no ids, no times). */
  async function snapshot(ok: Awaited<ReturnType<typeof open>>["ok"], worldId: string) {
    const w = sc(await ok("get_world", { worldId })).world as Json;
    const characters = sc(await ok("list_characters", { worldId, limit: 50 })).characters as Json[];
    const full = await Promise.all(characters.map(async (c) => sc(await ok("get_character", { characterId: c.id as string })).character as Json));
    const locations = sc(await ok("list_locations", { worldId, limit: 50 })).locations as Json[];
    const nameOf = new Map(locations.map((l) => [l.id, l.name]));
    return {
      world: { name: w.name, theme: w.theme, tone: w.tone, description: w.description, counts: w.counts },
      characters: full.map((c) => ({ name: c.name, role: c.role, traits: c.traits, backstory: c.backstory })),
      locations: locations.map((l) => ({ name: l.name, kind: l.kind, summary: l.summary, parent: l.parentId ? nameOf.get(l.parentId) : null })),
    };
  }

  async function exportOf(ok: Awaited<ReturnType<typeof open>>["ok"], worldId: string) {
    const r = await ok("export_world", { worldId });
    const embedded = Object.fromEntries(
      r.content.filter((b) => b.type === "resource").map((b) => [(b as { resource: { mimeType: string } }).resource.mimeType, (b as { resource: { text: string } }).resource.text]),
    );
    const refs = sc(r).files as { download_url: string; file_name: string; mime_type: string; expires_at: string; format: string }[];
    return { r, markdown: embedded["text/markdown"] as string, json: embedded["application/json"] as string, refs };
  }

  describe("export_world download links", () => {
    it("returns signed https-style links in structuredContent.files and as resource_link blocks; each serves the export's bytes", async () => {
      const { ok } = await open();
      const worldId = await sampleWorld(ok);
      const { r, markdown, json, refs } = await exportOf(ok, worldId);
      const origin = new URL(server()).origin;
      expect(refs.map((f) => f.format)).toEqual(["md", "json"]);
      for (const ref of refs) {
        expect(ref.download_url.startsWith(`${origin}/api/files/`)).toBe(true);
        expect(ref.file_name).toMatch(/^Isles-Reefs-[a-z0-9]+\.(md|json)$/);
        const ttl = Date.parse(ref.expires_at) - Date.now();
        expect(ttl).toBeGreaterThan(14 * 60_000);
        expect(ttl).toBeLessThanOrEqual(15 * 60_000);
      }
      const links = r.content.filter((b) => b.type === "resource_link") as { uri: string; name: string; mimeType: string }[];
      expect(links.map((l) => [l.uri, l.name, l.mimeType])).toEqual(refs.map((f) => [f.download_url, f.file_name, f.mime_type]));

      for (const [ref, text, type] of [[refs[0]!, markdown, "text/markdown"], [refs[1]!, json, "application/json"]] as const) {
        const res = await fetch(ref.download_url);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(text);
        expect(res.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
        expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${ref.file_name}"`);
        expect(res.headers.get("cache-control")).toBe("private, no-store");
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      }

      // A name the ASCII file name cannot carry travels beside it as filename* (RFC 6266).
      const unicode = sc(await ok("create_world", { name: "世界 Émile" })).world as Json;
      const unicodeRef = (await exportOf(ok, unicode.id as string)).refs[0]!;
      const unicodeRes = await fetch(unicodeRef.download_url);
      expect(unicodeRes.status).toBe(200);
      expect(unicodeRes.headers.get("content-disposition")).toBe(`attachment; filename="Emile.md"; filename*=UTF-8''${encodeURIComponent("世界-Émile.md")}`);
      // And the tool's answer names the file as the download saves it.
      expect(unicodeRef.file_name).toBe("世界-Émile.md");
      await unicodeRes.text();
    });

    it("gives a 2025-03-26 client, whose results hold no resource_link blocks, the links as text blocks", async () => {
      const { ok } = await open();
      const worldId = await sampleWorld(ok);
      const { client: old } = await connectClient(url(), { token: await tokenFor(server(), newSubject("files-0326")), protocolVersion: "2025-03-26" });
      try {
        const made = (await old.callTool({ name: "create_world", arguments: { name: "Old Isles", theme: "sea" } })) as CallToolResult;
        const r = (await old.callTool({ name: "export_world", arguments: { worldId: (sc(made).world as Json).id } })) as CallToolResult;
        expect(r.isError).toBeFalsy();
        expect(r.content.map((b) => b.type)).not.toContain("resource_link");
        const texts = r.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text);
        for (const ref of sc(r).files as { download_url: string; file_name: string }[]) {
          expect(texts.some((t) => t.startsWith(`${ref.file_name}: ${ref.download_url} (`))).toBe(true);
        }
      } finally {
        await old.close();
      }
      // A later revision keeps the blocks (the test above, at 2025-11-25).
      expect((await exportOf(ok, worldId)).r.content.some((b) => b.type === "resource_link")).toBe(true);
    });

    it("answers a forged, altered, expired or foreign link with the same 404", async () => {
      const a = await open();
      const b = await open();
      const worldId = await sampleWorld(a.ok);
      const { refs } = await exportOf(a.ok, worldId);
      const good = refs[0]!.download_url;
      const base = good.slice(0, good.lastIndexOf("/") + 1);
      const token = good.slice(base.length);
      const [body, mac] = token.split(".") as [string, string];
      const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Json;
      const key = await downloadLinkKey({ BETTER_AUTH_SECRET: TEST_SECRET, MCP_REQUEST_STATE_SECRET: undefined, MCP_AUTH_KEYS_DIR: undefined, NODE_ENV: "test" });
      // The test signs with the server's key: the link it made verifies, so the key is the same.
      expect(verifyDownloadToken(key, token, 900)).toMatchObject({ subject: a.subject, worldId, format: "md" });
      const soon = new Date(Date.now() + 60_000);

      const otherWorld = sc(await b.ok("create_world", { name: "B's world" })).world as Json;
      const deleted = sc(await a.ok("create_world", { name: "Short-lived" })).world as Json;
      const deletedLink = (await exportOf(a.ok, deleted.id as string)).refs[1]!.download_url;
      await a.ok("delete_world", { worldId: deleted.id, confirmName: "Short-lived" });

      const cases: Record<string, string> = {
        forged: `${base}${Buffer.from(JSON.stringify({ ...payload, s: b.subject })).toString("base64url")}.${"A".repeat(43)}`,
        "random junk": `${base}not-a-token`,
        "world id swapped, signature kept": `${base}${Buffer.from(JSON.stringify({ ...payload, w: otherWorld.id })).toString("base64url")}.${mac}`,
        "signature altered": `${base}${body}.${mac.slice(0, -2)}${mac.endsWith("AA") ? "BA" : "AA"}`,
        expired: `${base}${signDownloadToken(key, { subject: a.subject, worldId, format: "md", expiresAt: new Date(Date.now() - 1000) })}`,
        "signed for a subject that does not own the world": `${base}${signDownloadToken(key, { subject: b.subject, worldId, format: "json", expiresAt: soon })}`,
        "another user's world under one's own subject": `${base}${signDownloadToken(key, { subject: a.subject, worldId: otherWorld.id as string, format: "md", expiresAt: soon })}`,
        "a world its owner deleted": deletedLink,
      };
      const answers = await Promise.all(
        Object.entries(cases).map(async ([name, link]) => {
          const res = await fetch(link);
          return { name, status: res.status, body: await res.text(), type: res.headers.get("content-type"), cache: res.headers.get("cache-control") };
        }),
      );
      const first = answers[0]!;
      for (const answer of answers) {
        expect(answer, answer.name).toEqual({ ...first, name: answer.name });
      }
      expect(first.status).toBe(404);
      expect(first.cache).toBe("private, no-store");
      // The genuine link still works.
      expect((await fetch(good)).status).toBe(200);
    });
  });

  describe("import_world", () => {
    it("declares its file parameter, scope and annotations, and an output schema", async () => {
      const { client } = await open();
      const tool = (await client.listTools()).tools.find((t) => t.name === "import_world")!;
      expect(tool._meta?.["openai/fileParams"]).toEqual(["file"]);
      expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(tool.outputSchema).toBeDefined();
      expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(["file", "document", "format"]);
      const exportTool = (await client.listTools()).tools.find((t) => t.name === "export_world")!;
      // The published schema is the success shape or the tool-error envelope (lib/mcp/registry).
      const [success] = (exportTool.outputSchema as unknown as { anyOf: { properties?: Record<string, unknown> }[] }).anyOf;
      expect(success?.properties).toHaveProperty("files");
    });

    it("round-trips the Markdown export (inline) and the JSON export (by its download link) to an equal, new world", async () => {
      const { ok, worldCount } = await open();
      const worldId = await sampleWorld(ok);
      const original = await snapshot(ok, worldId);
      const { markdown, refs } = await exportOf(ok, worldId);

      const fromMarkdown = await ok("import_world", { document: markdown });
      const mdWorld = sc(fromMarkdown).world as Json;
      expect(sc(fromMarkdown).imported).toEqual({ format: "markdown", characters: 6, locations: 4 });
      expect(mdWorld.id).not.toBe(worldId);
      expect(await snapshot(ok, mdWorld.id as string)).toEqual(original);

      // ChatGPT's file parameter shape; here the file is the export's own download link.
      const fromJson = await ok("import_world", { file: { download_url: refs[1]!.download_url, file_id: "file-test-json" } });
      expect(sc(fromJson).imported).toMatchObject({ format: "json" });
      expect(await snapshot(ok, (sc(fromJson).world as Json).id as string)).toEqual(original);

      // And the Markdown file fetched from a (loopback) file host, format sniffed from its type.
      markdownFixture = markdown.replace(/\n/g, "\r\n");
      const fromHost = await ok("import_world", { file: { download_url: files.url("/world.md"), file_id: "file-test-md" } });
      expect(sc(fromHost).imported).toMatchObject({ format: "markdown" });
      expect(await snapshot(ok, (sc(fromHost).world as Json).id as string)).toEqual(original);
      expect(await worldCount()).toBe(4);
    });

    // Outside probe (2026-11-29): rows were dated base + i from the import on, up to a second ahead
    // for a thousand rows, so a record created just after the import listed below them and
    // exported among them, and an imported row's createdAt came out later than its updatedAt.
    it("dates imported rows before the import: a record created after it lists first and exports last", async () => {
      const { ok, client } = await open();
      const characters = Array.from({ length: 1000 }, (_, i) => ({ name: `Imported ${i}` }));
      const doc = { format: "worldcrafter.world/v1", world: { name: "Dated", theme: "time" }, characters, locations: [] };
      const imported = sc(await ok("import_world", { document: JSON.stringify(doc), format: "json" }));
      const worldId = (imported.world as Json).id as string;
      const later = sc(await ok("create_character", { worldId, name: "Created after import" })).character as Json;

      const page = sc(await ok("list_characters", { worldId, limit: 3 })).characters as Json[];
      expect(page.map((c) => c.name)).toEqual(["Created after import", "Imported 999", "Imported 998"]);
      // A thousand records are past what export_world embeds: the export's resource has them all.
      const read = await client.readResource({ uri: `world://${worldId}/export.json` });
      const exported = (JSON.parse((read.contents[0] as { text: string }).text) as { characters: Json[] }).characters.map((c) => c.name);
      expect(exported.slice(0, 2)).toEqual(["Imported 0", "Imported 1"]);
      expect(exported.slice(-2)).toEqual(["Imported 999", "Created after import"]);

      const newest = sc(await ok("get_character", { characterId: (page[1] as Json).id })).character as Json;
      expect(Date.parse(newest.createdAt as string)).toBeLessThanOrEqual(Date.parse(newest.updatedAt as string));
      expect(Date.parse(newest.createdAt as string)).toBeLessThan(Date.parse(later.createdAt as string));
    });

    it("refuses hostile files and bad arguments with a clear error, writing nothing", async () => {
      const { call, refused, worldCount, ok } = await open();
      const worldId = await sampleWorld(ok);
      const { markdown, json } = await exportOf(ok, worldId);
      const before = await worldCount();
      const file = (download_url: string) => ({ file: { download_url, file_id: "file-x" } });

      expect(await refused(file(files.url("/huge.md")))).toMatch(/^Nothing imported: the file is too large \(2097152 bytes; at most 1048576\)/);
      expect(await refused(file(files.url("/huge-chunked.md")))).toMatch(/^Nothing imported: the file is too large \(more than 1048576 bytes\)/);
      expect(await refused(file(files.url("/page.html")))).toMatch(/the file's type text\/html is not a world file/);
      expect(await refused(file(files.url("/image.png")))).toMatch(/the file's type image\/png is not a world file/);
      for (const direct of ["https://10.0.0.1/world.md", "https://169.254.169.254/latest/meta-data/", "https://[fd12::1]/x.md", "https://[::ffff:a00:1]/x.md", "https://[fe80::1]/x.md", "http://192.168.1.1/x.md"]) {
        expect(await refused(file(direct)), direct).toMatch(/the file's host is not a public internet address/);
      }
      for (const hop of ["/to-private", "/to-metadata", "/to-mapped", "/to-unique-local"]) {
        expect(await refused(file(files.url(hop))), hop).toMatch(/the file's host is not a public internet address/);
      }
      expect(await refused(file(files.url("/loop")))).toMatch(/redirects more than 3 times/);
      expect(await refused(file(files.url("/missing.md")))).toMatch(/answered HTTP 404/);
      // Loopback is allowed on these servers (the test switch), so this one is tried and fails plainly.
      expect(await refused(file("https://127.0.0.1:1/x.md"))).toMatch(/^Nothing imported: the file's server could not be reached$/);

      const badMarkdown = markdown.replace(/^## Characters \(6\)$/m, "## Characters (8)");
      expect(await refused({ document: badMarkdown })).toMatch(/^Nothing imported: the Markdown file is not a valid WorldCrafter world: line \d+: the heading says 8 characters but 6 follow/);
      expect(await refused({ document: "Just some notes\nabout a world" })).toMatch(/line 1: expected the world's title/);
      // Text quoted from the file is the file's problem, not a database outage.
      expect(await refused({ document: "# W\n*Theme:* t\n## Characters (0)\n## Locations (1)\n- **A** Connection terminated ECONNREFUSED\n" })).toMatch(/line 5: unexpected text after the location: "Connection terminated ECONNREFUSED"/);
      expect(await refused({ document: json.slice(0, -20) })).toMatch(/^Nothing imported: the JSON file is not a valid WorldCrafter world: not valid JSON/);
      const longName = JSON.stringify({ ...JSON.parse(json), characters: [{ name: "x".repeat(200) }] });
      expect(await refused({ document: longName })).toMatch(/\$\.characters\[0\]\.name: /);
      expect(await refused({ document: markdown, format: "json" })).toMatch(/not valid JSON/);
      // Control characters reach the parsed file as JSON escapes: refused as create_world refuses
      // them (NUL was PostgreSQL 22021, an `internal` error), naming the field.
      const parsedJson = JSON.parse(json) as { world: Json; characters: Json[]; locations: Json[] };
      const withControl = (where: "description" | "backstory" | "place", control: string) =>
        JSON.stringify({
          ...parsedJson,
          world: where === "description" ? { ...parsedJson.world, description: `a${control}b` } : parsedJson.world,
          characters: parsedJson.characters.map((c, i) => (where === "backstory" && i === 0 ? { ...c, backstory: `a${control}b` } : c)),
          locations: parsedJson.locations.map((l, i) => (where === "place" && i === 0 ? { ...l, description: `a${control}b` } : l)),
        });
      const fieldOf = { description: "$.world.description", backstory: "$.characters[0].backstory", place: "$.locations[0].description" } as const;
      for (const control of ["\u0000", "\u0007", "\u001b[31m"]) {
        for (const where of ["description", "backstory", "place"] as const) {
          const r = await call("import_world", { document: withControl(where, control) });
          expect(r.isError, `${where} ${JSON.stringify(control)}`).toBe(true);
          const error = (r.structuredContent as { error: Json }).error;
          expect(error.code, `${where} ${JSON.stringify(control)}`).toBe("invalid_argument");
          expect(error.message).toContain(`${fieldOf[where]}: Control characters are not allowed`);
        }
      }

      // Arguments the input schema refuses: a tool error too (server/tools §error handling, 2025-11-25).
      expect(await refused({ document: markdown, ...file(files.url("/world.md")) })).toMatch(/^Invalid arguments for tool import_world: .*exactly one of `file`/);
      expect(await refused({})).toMatch(/^Invalid arguments for tool import_world: /);
      expect(await refused({ file: { download_url: "ftp://example.com/w.md" } })).toMatch(/^Invalid arguments for tool import_world: file\.download_url: /);

      expect(await worldCount()).toBe(before);
    });
  });
});

describe("download links across instances", () => {
  it("a link one instance made opens on another instance of the deployment (one key, one database)", async () => {
    const subject = newSubject("files-x");
    const { client } = await connectClient(`${inject("statefulUrl")}/api/mcp`, { token: await tokenFor(inject("statefulUrl"), subject) });
    const world = (await client.callTool({ name: "create_world", arguments: { name: "Shared Reef" } })) as CallToolResult;
    const worldId = ((world.structuredContent as Json).world as Json).id as string;
    const exported = (await client.callTool({ name: "export_world", arguments: { worldId } })) as CallToolResult;
    const link = new URL(((exported.structuredContent as Json).files as { download_url: string }[])[1]!.download_url);
    const elsewhere = new URL(link.pathname, inject("statelessUrl"));
    expect(elsewhere.origin).not.toBe(link.origin);
    const res = await fetch(elsewhere);
    expect(res.status).toBe(200);
    expect((JSON.parse(await res.text()) as { world: Json }).world.name).toBe("Shared Reef");
  });
});

describe("in the 2026-07-28 era", () => {
  it("export links and import_world work the same for a v2 client (stateless requests)", async () => {
    const base = inject("statefulUrl");
    const { client } = await connectModernClient(`${base}/api/mcp`, { token: await tokenFor(base, newSubject("files-v2")) });
    await client.listTools();
    const world = await client.callTool({ name: "create_world", arguments: { name: "Modern Mire", tone: "damp" } });
    const worldId = ((world.structuredContent as Json).world as Json).id as string;
    const exported = await client.callTool({ name: "export_world", arguments: { worldId } });
    const ref = ((exported.structuredContent as Json).files as { download_url: string }[])[0]!;
    const markdown = await (await fetch(ref.download_url)).text();
    const imported = await client.callTool({ name: "import_world", arguments: { document: markdown } });
    expect(imported.isError).toBeFalsy();
    expect((imported.structuredContent as Json).world).toMatchObject({ name: "Modern Mire", tone: "damp", counts: { characters: 0, locations: 0 } });
  });
});

describe("the file fetcher without the test switch", () => {
  const strict = { maxBytes: 1024, timeoutMs: 300, allowLoopback: false };

  it("refuses http, loopback by address and by name, and a host that never answers", async () => {
    const hang = await fileServer({ "/hang": () => undefined, "/ok.md": serve("text/markdown", "# W") });
    try {
      await expect(fetchFile(hang.url("/ok.md"), strict)).rejects.toThrow(/only https URLs can be fetched/);
      await expect(fetchFile(hang.url("/ok.md").replace("http:", "https:"), strict)).rejects.toThrow(/^the file's host is not a public internet address; only public https URLs can be fetched$/);
      await expect(fetchFile("https://localhost/ok.md", strict)).rejects.toThrow(/^the file's host is not a public internet address; only public https URLs can be fetched$/);
      await expect(fetchFile("https://no-such-host.invalid/ok.md", strict)).rejects.toThrow(/^the file's host is not a public internet address; only public https URLs can be fetched$/);
      await expect(fetchFile(hang.url("/hang"), { ...strict, allowLoopback: true })).rejects.toThrow(/took too long/);
      await expect(fetchFile(hang.url("/ok.md"), { ...strict, allowLoopback: true })).resolves.toMatchObject({ text: "# W", mediaType: "text/markdown", fileName: "ok.md" });
      // By name: the connection goes to the addresses the check resolved (the pinned lookup).
      await expect(fetchFile(hang.url("/ok.md").replace("127.0.0.1", "localhost"), { ...strict, allowLoopback: true })).resolves.toMatchObject({ text: "# W" });
    } finally {
      await hang.close();
    }
  });

  it("closes a redirect's or an error answer's body at once, however long the server would send it", async () => {
    // The server sends each answer's body without end (as fast as the socket takes it); reading it
    // to its end kept the process downloading after the call had returned (outside audit, HIGH).
    const closed: Record<string, number> = {};
    const endless = (status: number, headers: Record<string, string>) => (req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(status, headers);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pump);
      res.on("close", () => (closed[req.url ?? ""] = Date.now()));
      pump();
    };
    const files = await fileServer({
      "/moved": endless(302, { location: "/ok.md", "content-type": "text/plain" }),
      "/broken": endless(500, { "content-type": "text/plain" }),
      "/ok.md": serve("text/markdown", "# W"),
    });
    const patient = { ...strict, timeoutMs: 10_000, allowLoopback: true };
    try {
      await expect(fetchFile(files.url("/moved"), patient)).resolves.toMatchObject({ text: "# W" });
      const movedDone = Date.now();
      await expect(fetchFile(files.url("/broken"), patient)).rejects.toThrow(/^the file URL answered HTTP 500$/);
      const brokenDone = Date.now();
      await expect.poll(() => closed["/moved"], { timeout: 2_000 }).toBeDefined();
      await expect.poll(() => closed["/broken"], { timeout: 2_000 }).toBeDefined();
      expect((closed["/moved"] as number) - movedDone).toBeLessThan(1_000);
      expect((closed["/broken"] as number) - brokenDone).toBeLessThan(1_000);
    } finally {
      await files.close();
    }
  });

  it("fetches https through the pinned lookup and still verifies the certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wc-files-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=localhost"], { stdio: "ignore" });
    const tls = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => res.writeHead(200, { "content-type": "text/markdown" }).end("# W"));
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const { port } = tls.address() as AddressInfo;
    try {
      await expect(fetchFile(`https://localhost:${port}/w.md`, { ...strict, allowLoopback: true })).rejects.toThrow(/^the file's server has no valid TLS certificate$/);
      await expect(fetchFile(`https://localhost:${port}/w.md`, strict)).rejects.toThrow(/not a public internet address/);
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
