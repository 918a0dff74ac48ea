import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { ERAS, eraClient, toolResult } from "../support/both-eras";

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
});
