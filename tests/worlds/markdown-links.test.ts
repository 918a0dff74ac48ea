import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { ERAS, eraClient, toolResult } from "../support/both-eras";

/**
 * Issue 19: links a user writes into prose (a world's description, a character's backstory) reach
 * the Markdown the server produces — the export (export_world, world://{id}/export.md) — only when
 * their scheme is http(s) or mailto; any other link is defused to the text that was typed. The
 * fetch tool's text is plain text, the record as typed (lib/worlds/knowledge/documents.ts): there
 * a link is only its characters, and the record page shows them as text (record-pages.test.ts).
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

describe.each(ERAS)("in %s", (era) => {
  it("the export keeps http(s)/mailto links and defuses every other scheme; fetch gives the prose as typed", async () => {
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
    expect(markdown).toContain("open me");
    expect(markdown, markdown).not.toMatch(LIVE_UNSAFE_LINK);
    for (const safe of SAFE) expect(markdown).toContain(safe);

    for (const fetched of [fetchedWorld, fetchedCharacter]) {
      const text = (JSON.parse(fetched?.content[0]?.text ?? "{}") as { text?: string }).text ?? "";
      expect(text).toContain(prose);
    }
  });
});
