import { describe, expect, it } from "vitest";
import { lookupLocale } from "../../lib/mcp/policy/locale";
import { readClientHints } from "../../lib/mcp/policy/client-hints";

describe("lookupLocale (RFC 4647 §3.4 lookup)", () => {
  const policy = { supported: ["en", "fr", "es-419", "zh-Hant"], fallback: "en" };

  it.each([
    ["fr", "fr"],
    ["fr-CA", "fr"],
    ["FR-ca", "fr"],
    ["es-419", "es-419"],
    ["es-419-x-private", "es-419"],
    ["es-ES", "en"],
    ["zh-Hant-TW", "zh-Hant"],
    ["zh-hant", "zh-Hant"],
    ["de-DE, fr;q=0.5", "fr"],
    ["de, fr;q=0, es-419;q=0.1", "es-419"],
    ["", "en"],
    ["not a tag", "en"],
    [42, "en"],
    [undefined, "en"],
  ])("%j → %s", (requested, expected) => {
    expect(lookupLocale(requested, policy)).toBe(expected);
  });
});

describe("readClientHints", () => {
  it("keeps well-formed hints and drops malformed fields one by one", () => {
    expect(
      readClientHints({
        "openai/userAgent": "ChatGPT/1.2025.012",
        "openai/userLocation": { city: "San Francisco", country: "US", timezone: "America/Los_Angeles", latitude: 37.77, longitude: -122.41 },
        "openai/subject": "v1/abc",
        "openai/session": "conv-1",
      }),
    ).toEqual({
      userAgent: "ChatGPT/1.2025.012",
      userLocation: { city: "San Francisco", country: "US", timezone: "America/Los_Angeles", latitude: 37.77, longitude: -122.41 },
      subject: "v1/abc",
      conversation: "conv-1",
    });
    expect(readClientHints({ "openai/userLocation": { city: "Lyon", timezone: "Mars/Olympus", latitude: 500 } })).toEqual({ userLocation: { city: "Lyon" } });
    expect(readClientHints({ "openai/userAgent": 7, "openai/userLocation": "here", "openai/subject": "x".repeat(300) })).toEqual({});
  });
});
