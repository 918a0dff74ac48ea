import { marked } from "marked";
import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { ERAS, callTool, eraClient, toolResult, type EraClient } from "../support/both-eras";

/**
 * Issue 19: links a user writes into prose (a world's description, a character's backstory) reach
 * every text the server produces that a host may render as Markdown — the export (export_world,
 * world://{id}/export.md) and the fetch tool's text — only when their scheme is http(s) or mailto;
 * any other link is defused to the text that was typed. fetch's text is otherwise the record as
 * typed (record-pages.test.ts).
 */
const HOSTILE = [
  "[open me](javascript:alert(document.cookie))",
  "[case](JaVaScRiPt:alert(1))",
  "[entity](&#106;avascript:alert(1))",
  "[data](data:text/html;base64,PHNjcmlwdD4=)",
  "[ref]: vbscript:msgbox(1)",
];
const SAFE = ["[site](https://example.org/a:b)", "[mail](mailto:keeper@example.org)"];

/** Inline links and reference definitions whose destination is not http(s) or mailto. */
const LIVE_UNSAFE_LINK = /\]\(\s*<?(?!https?:|mailto:)[^)\s]*[:&]|(^|\n)\s*\[[^\]]*[^\]\\]\]:\s*(?!https?:|mailto:)\S*:/i;

/** A tools/call that must succeed (callTool), not answer an isError result. */
async function succeeded(client: EraClient, name: string, args: Record<string, unknown>) {
  const result = await callTool(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBeFalsy();
  return result;
}

describe.each(ERAS)("in %s", (era) => {
  it("export and fetch keep http(s)/mailto links and defuse every other scheme", async () => {
    const server = inject("statefulUrl");
    const client = await eraClient(`${server}/api/mcp`, era, await tokenFor(server, newSubject("links")));
    const prose = [...HOSTILE, ...SAFE].join("\n\n");
    const world = toolResult((await client.request("tools/call", { name: "create_world", arguments: { name: "Linkmoor", theme: "fantasy", description: prose } })).message);
    const worldId = (world?.structuredContent?.world as { id: string }).id;
    const character = toolResult((await client.request("tools/call", { name: "create_character", arguments: { worldId, name: "Quill", backstory: prose } })).message);
    const characterId = (character?.structuredContent?.character as { id: string }).id;

    const exported = (await client.request("resources/read", { uri: `world://${worldId}/export.md` })).message?.result as { contents: { text: string }[] };
    const markdown = exported.contents[0]?.text ?? "";
    const fetchedWorld = toolResult((await client.request("tools/call", { name: "fetch", arguments: { id: `world:${worldId}` } })).message);
    const fetchedCharacter = toolResult((await client.request("tools/call", { name: "fetch", arguments: { id: `character:${characterId}` } })).message);
    const texts = [markdown, ...[fetchedWorld, fetchedCharacter].map((r) => (JSON.parse(r?.content[0]?.text ?? "{}") as { text?: string }).text ?? "")];

    for (const text of texts) {
      expect(text).toContain("open me");
      expect(text, text).not.toMatch(LIVE_UNSAFE_LINK);
      for (const safe of SAFE) expect(text).toContain(safe);
    }
  });

  // Outside probe (2026-11-29): only the prose was defused. A name, theme, role, trait or kind is
  // as much Markdown to a renderer, fetch's title and search's title and snippet are too, and a
  // link can open in one field and close in the next ("[open — ](javascript:…)").
  it("fetch's text and title, and search's titles and snippets, defuse unsafe links in every field", async () => {
    const server = inject("statefulUrl");
    const client = await eraClient(`${server}/api/mcp`, era, await tokenFor(server, newSubject("field-links")));
    const call = (name: string, args: Record<string, unknown>) => succeeded(client, name, args);
    const world = await call("create_world", { name: "[w](javascript:alert(1)) Zephyrmark", theme: "[t](javascript:alert(2))", tone: "[tone](data:text/html,x)" });
    const worldId = (world.structuredContent?.world as { id: string }).id;
    const character = await call("create_character", { worldId, name: "[open Zephyrmark", role: "](javascript:alert(3))", traits: ["[tr](vbscript:x)"] });
    const characterId = (character.structuredContent?.character as { id: string }).id;
    const location = await call("create_location", { worldId, name: "[l](javascript:alert(4)) Zephyrmark", kind: "[k](JaVaScRiPt:alert(5))" });
    const locationId = (location.structuredContent?.location as { id: string }).id;

    const texts: string[] = [];
    for (const id of [`world:${worldId}`, `character:${characterId}`, `location:${locationId}`]) {
      const fetched = JSON.parse((await call("fetch", { id })).content[0]?.text ?? "{}") as { title: string; text: string };
      texts.push(fetched.title, fetched.text);
    }
    const searched = JSON.parse((await call("search", { query: "Zephyrmark" })).content[0]?.text ?? "{}") as { results: { title: string; snippet: string }[] };
    expect(searched.results.length).toBeGreaterThanOrEqual(3);
    for (const r of searched.results) texts.push(r.title, r.snippet);

    for (const text of texts) expect(text, text).not.toMatch(LIVE_UNSAFE_LINK);
    // Defused, not dropped: the text still reads as typed.
    expect(texts.join("\n")).toContain("javascript:alert(3)");
  });

  // Outside probe (2026-11-29): only `](` and `]:` links were defused. An autolink
  // (`<javascript:…>`) and raw HTML (`<a href>`, `<img onerror>`) came back live in fetch's text,
  // title and metadata and in search's title and snippet, and marked renders both by default.
  // Verification probe (2026-11-29): keeping "inert" tags and safe autolinks was not safe. A kept
  // `<p>` opens an HTML block, where a browser reads a kept email autolink
  // `<img/src='x'/onerror=…//@x.com>` as an image with a handler; so no `<` that opens markup stays.
  it("every < that could open an autolink or raw HTML is defused, in every field", async () => {
    const server = inject("statefulUrl");
    const client = await eraClient(`${server}/api/mcp`, era, await tokenFor(server, newSubject("angle-links")));
    const call = (name: string, args: Record<string, unknown>) => succeeded(client, name, args);
    const hostile = 'Qwertle <javascript:alert(1)> <VbScript:msgbox(1)> <a href="javascript:alert(2)">here</a> <img src=x onerror=alert(3)> <script>alert(4)</script> <svg onload=alert(5)> <!-- c -->';
    const blocks = "<p><img/src='x'/onerror=alert`1`//@x.com>\n<p>\n<https://x/onmouseover=\"alert(1)\"/style=\"position:fixed\">\n<b>bold</b> <keeper@example.org>";
    const plain = "a < b <3 and 2<3";
    const world = await call("create_world", { name: "Qwertle <javascript:alert(6)>", theme: "<p><img/src='x'/onerror=alert`7`//@x.com>", description: `${hostile}\n\n${blocks}\n\n${plain}` });
    const worldId = (world.structuredContent?.world as { id: string }).id;
    const character = await call("create_character", { worldId, name: "Qwertle <a href=javascript:alert(8)>x</a>", backstory: `${hostile}\n[x]: <javascript:alert(9)>` });
    const characterId = (character.structuredContent?.character as { id: string }).id;

    const texts: string[] = [];
    for (const id of [`world:${worldId}`, `character:${characterId}`]) {
      const fetched = JSON.parse((await call("fetch", { id })).content[0]?.text ?? "{}") as { title: string; text: string; metadata: Record<string, unknown> };
      texts.push(fetched.title, fetched.text, ...Object.values(fetched.metadata).filter((v): v is string => typeof v === "string"));
    }
    const searched = JSON.parse((await call("search", { query: "Qwertle" })).content[0]?.text ?? "{}") as { results: { title: string; snippet: string }[] };
    expect(searched.results.length).toBeGreaterThanOrEqual(2);
    for (const r of searched.results) texts.push(r.title, r.snippet);

    // A `<` that opens a tag, an autolink, a comment, a declaration or an instruction.
    const LIVE_ANGLE = /<[A-Za-z/!?]/;
    for (const text of texts) {
      expect(text, text).not.toMatch(LIVE_ANGLE);
      expect(text, text).not.toMatch(LIVE_UNSAFE_LINK);
    }
    const worldText = texts[1] ?? "";
    expect(worldText).toContain(plain);
    expect(worldText).toContain("&lt;p>&lt;img/src='x'/onerror=alert`1`//@x.com>");
    expect(worldText).toContain("&lt;b>bold&lt;/b> &lt;keeper@example.org>");
    expect(worldText).toContain("&lt;javascript:alert(1)>");
    expect(worldText).toContain('&lt;a href="javascript:alert(2)">here&lt;/a>');
  });

  // Second verification probe (2026-11-29): the destination's run went on through brackets, so
  // `[x](/[y](javascript:…)` was judged one relative destination and its inner link never looked
  // at, a label's `]:` swallowed the definition's real `]:`, and a CR line ending hid a
  // definition's destination. Rendered here by marked, with raw HTML on (its default), as a host would.
  it("fetch and search text, rendered as Markdown, holds no link or image to another scheme and no HTML", async () => {
    const server = inject("statefulUrl");
    const client = await eraClient(`${server}/api/mcp`, era, await tokenFor(server, newSubject("rendered-links")));
    const call = (name: string, args: Record<string, unknown>) => succeeded(client, name, args);
    const attempts = [
      "[x](/[y](javascript:alert(document.domain))",
      "[x](/![img](javascript:alert(4))",
      "see [go][a\\]:/]\n\n[a\\]:/]: javascript:alert(2)",
      "[b\\]:x]: javascript:alert(5)\n\n[go][b\\]&#58;x]",
      "see [cr]\r\n\r\n[cr]:\r\njavascript:alert(3)",
      "see [lone]\r\r[lone]:\rjavascript:alert(6)",
      "[q]:\n  <javascript:alert(7)>\n\n[q]",
      "<p><img/src='x'/onerror=alert`8`//@x.com>",
      "[ok](https://example.org/ok) and [m](mailto:keeper@example.org)",
    ];
    const world = await call("create_world", { name: "Rendermark", theme: "fantasy", description: attempts.join("\n\n") });
    const worldId = (world.structuredContent?.world as { id: string }).id;
    const character = await call("create_character", { worldId, name: "Rendermark Quill", backstory: attempts.join("\n\n") });
    const characterId = (character.structuredContent?.character as { id: string }).id;
    const texts: string[] = [];
    for (const id of [`world:${worldId}`, `character:${characterId}`]) texts.push((JSON.parse((await call("fetch", { id })).content[0]?.text ?? "{}") as { text: string }).text);
    for (const r of (JSON.parse((await call("search", { query: "Rendermark" })).content[0]?.text ?? "{}") as { results: { snippet: string }[] }).results) texts.push(r.snippet);
    expect(texts.length).toBeGreaterThanOrEqual(4);
    for (const text of texts) {
      const html = await marked.parse(text);
      const targets = [...html.matchAll(/\b(?:href|src)="([^"]*)"/g)].map((m) => m[1] ?? "");
      for (const target of targets) expect(target, html).toMatch(/^(?:https?:|mailto:|\/|[^:]*$)/i);
      // Nothing but the tags Markdown itself makes.
      for (const tag of html.matchAll(/<([a-z][a-z0-9]*)\b/gi)) expect(["p", "a", "br", "em", "strong", "code", "ul", "ol", "li", "h1", "h2", "h3", "blockquote", "hr", "pre"], html).toContain(tag[1]?.toLowerCase());
    }
    expect(texts[1]).toContain("[ok](https://example.org/ok)");
  });
});

