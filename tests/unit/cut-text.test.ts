import { describe, expect, it } from "vitest";
import { cutText } from "../../lib/text/cut-text";

describe("cutText: a bounded prefix that ends on a whole character", () => {
  it("cuts at the bound, or one before it when the bound falls inside a surrogate pair", () => {
    expect(cutText("abcdef", 3)).toBe("abc");
    expect(cutText("ab😀cd", 3)).toBe("ab");
    expect(cutText("ab😀cd", 4)).toBe("ab😀");
    expect(cutText("😀", 1)).toBe("");
  });

  it("leaves text within the bound as it is, and gives nothing for a bound of 0", () => {
    expect(cutText("ab😀", 4)).toBe("ab😀");
    expect(cutText("abc", 0)).toBe("");
  });

  it("every cut of a text of pairs is well formed", () => {
    const text = "x😀y🎲z".repeat(10);
    for (let max = 0; max <= text.length; max++) expect(cutText(text, max).isWellFormed(), String(max)).toBe(true);
  });
});
