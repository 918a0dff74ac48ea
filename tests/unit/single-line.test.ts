import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BIDI_CONTROLS_MESSAGE, singleLine } from "../../lib/worlds/single-line";
import { CONTROL_CHARACTERS_MESSAGE } from "../../lib/mcp";

/**
 * Single-line text's published pattern says what the server takes: every character the server
 * refuses in a name (controls, line and paragraph separators, bidirectional controls) fails the
 * pattern a client reads from inputSchema, and every character it takes passes it (outside probe,
 * 2026-11-29: U+202A–U+202E and U+2066–U+2069 passed the schema and were refused).
 */
const schema = singleLine().max(200);
const published = z.toJSONSchema(z.object({ name: schema })).properties?.name;
const pattern = new RegExp(typeof published === "object" && typeof published.pattern === "string" ? published.pattern : "(?!)", "u");

const refused = ["a\u0000b", "a\nb", "a\u0085b", "a\u2028b", "a\u2029b", "evil\u202egpj.exe", "a\u202ab", "a\u202db", "a\u2066b", "a\u2067b", "a\u2068b", "a\u2069b"];
const taken = ["Café", "Ælfwine", "\u05e9\u05dc\u05d5\u05dd", "a\u200eb", "a\u200fb", "a\u200db", "emoji 🐉", "tab-free"];

describe("single-line text", () => {
  it.each(refused)("%j: refused by the server and by the published pattern", (text) => {
    expect(schema.safeParse(text).success).toBe(false);
    expect(pattern.test(text)).toBe(false);
  });

  it.each(taken)("%j: taken by both", (text) => {
    expect(schema.safeParse(text).success).toBe(true);
    expect(pattern.test(text)).toBe(true);
  });

  it("names the bidirectional controls alone in the error, and other controls as controls", () => {
    const bidi = schema.safeParse("evil\u202egpj.exe");
    expect(bidi.success ? [] : bidi.error.issues.map((i) => i.message)).toEqual([BIDI_CONTROLS_MESSAGE]);
    const control = schema.safeParse("a\u0007b");
    expect(control.success ? [] : control.error.issues.map((i) => i.message)).toEqual([CONTROL_CHARACTERS_MESSAGE]);
  });
});
