/**
 * The widgets' pure parts, without a browser: the string table's language lookup (the server's
 * RFC 4647 function), dates in the user's timezone, the relation graph's edges, and the build's
 * size budget (a widget over it fails the build, so CI fails).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDate, stringsFor, WIDGET_LOCALES } from "../../widgets/ui/i18n";
import { edgesOf } from "../../widgets/ui/graph";
import { addedBeyond, countWithAdded } from "../../widgets/world-card/added";
import { MAX_KEPT_STATES, STATE_KEY_PREFIX, keepState, stateKey } from "../../widgets/bridge/state-key";
import { changedFields, traitsOf } from "../../widgets/world-card/character-editor";
import { MAX_IMPORT_BYTES } from "../../widgets/bridge/host";
import { hostContextOf } from "../../widgets/bridge/mcp-apps-context";
import { IMPORT_MAX_BYTES_DEFAULT, loadEnv } from "../../lib/config/env";
import { ROOT } from "../support/next-server.mjs";

describe("the widgets' string table", () => {
  it("picks the language by RFC 4647 lookup, regional tables over their language's", () => {
    expect(stringsFor("ja-JP").exportWorld).toBe("エクスポート");
    expect(stringsFor("ko-KR").exportWorld).toBe("내보내기");
    expect(stringsFor("zh-CN").exportWorld).toBe("导出");
    expect(stringsFor("fr-CA").counts(2, 1)).toBe("2 personnages · 1 lieu");
    expect(stringsFor("es-419").showMore).toBe("Mostrar más");
    // en-GB changes a few strings and keeps the rest of English.
    expect(stringsFor("en-GB").deleted("Vale")).toBe("Deleted ‘Vale’.");
    expect(stringsFor("en-GB").exportWorld).toBe("Export");
    expect(stringsFor("en-US").deleted("Vale")).toBe('Deleted "Vale".');
    // Unsupported or malformed: English.
    expect(stringsFor("de-DE").exportWorld).toBe("Export");
    expect(stringsFor("").exportWorld).toBe("Export");
    expect(stringsFor("de, ja;q=0.5").exportWorld).toBe("エクスポート");
  });

  it("has every string in every language (none empty)", () => {
    const keys = Object.keys(stringsFor("en"));
    for (const tag of WIDGET_LOCALES.supported) {
      const t = stringsFor(tag) as unknown as Record<string, unknown>;
      for (const key of keys) {
        const value = t[key];
        const shown = typeof value === "function" ? (value as (...a: unknown[]) => string)("X", "Y") : value;
        expect(typeof shown === "string" && shown.length > 0, `${tag}.${key}`).toBe(true);
      }
    }
  });

  it("formats dates in the host's locale and the user's timezone, and survives a bad zone", () => {
    const iso = "2026-11-24T23:30:00.000Z";
    expect(formatDate(iso, "en-US", "Asia/Tokyo")).toBe(new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(new Date(iso)));
    expect(formatDate(iso, "en-US", "Asia/Tokyo")).toContain("Nov 25");
    expect(formatDate(iso, "en-US", "America/Los_Angeles")).toContain("Nov 24");
    expect(formatDate(iso, "en-US", "Not/AZone")).not.toBe("");
    expect(formatDate("not a date", "en-US")).toBe("");
  });
});

describe("the relation graph", () => {
  it("draws each related pair once, and nothing to a character not drawn", () => {
    const nodes = [
      { id: "a", name: "A" },
      { id: "b", name: "B" },
      { id: "c", name: "C" },
    ];
    const relations = new Map([
      ["a", ["b", "c", "zz"]],
      ["b", ["a", "c"]],
      ["c", ["a", "b", "c"]],
    ]);
    expect(edgesOf(nodes, relations)).toEqual([
      ["a", "b"],
      ["a", "c"],
      ["b", "c"],
    ]);
  });
});

describe("MCP Apps widget state", () => {
  it("is keyed by the rendered result: the same call id or arguments with another result is another key", () => {
    const result = (worldId: string, characters: number) => ({ structuredContent: { world: { id: worldId, counts: { characters } } } });
    const key = stateKey("world-card", { toolCallId: 3, input: { worldId: "a" }, result: result("a", 1) });
    expect(stateKey("world-card", { toolCallId: 3, input: { worldId: "a" }, result: result("a", 1) })).toBe(key);
    expect(stateKey("world-card", { toolCallId: 3, input: { worldId: "b" }, result: result("b", 1) })).not.toBe(key);
    expect(stateKey("world-card", { input: { worldId: "a" }, result: result("a", 2) })).not.toBe(stateKey("world-card", { input: { worldId: "a" }, result: result("a", 1) }));
    expect(stateKey("world-list", { toolCallId: 3, input: { worldId: "a" }, result: result("a", 1) })).not.toBe(key);
  });

  it("keeps the states of the last 100 results, forgetting the oldest (one key per result grew without bound)", () => {
    // A Map behind the Storage methods keepState uses: node has no localStorage.
    const items = new Map<string, string>();
    const store = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
    for (let n = 0; n < 150; n++) keepState(store, `${STATE_KEY_PREFIX}w:${n}`, `{"n":${n}}`);
    const states = [...items.keys()].filter((k) => k.startsWith(`${STATE_KEY_PREFIX}w:`));
    expect(states).toHaveLength(MAX_KEPT_STATES);
    expect(items.has(`${STATE_KEY_PREFIX}w:49`)).toBe(false);
    expect(items.get(`${STATE_KEY_PREFIX}w:50`)).toBe('{"n":50}');
    // Saving again makes a state the newest: it outlives older ones.
    keepState(store, `${STATE_KEY_PREFIX}w:50`, '{"n":"again"}');
    keepState(store, `${STATE_KEY_PREFIX}w:150`, "{}");
    expect(items.has(`${STATE_KEY_PREFIX}w:50`)).toBe(true);
    expect(items.has(`${STATE_KEY_PREFIX}w:51`)).toBe(false);
  });

  it("adds a character added from the card once, and not when the server's list has it", () => {
    const row = (id: string) => ({ id, name: id, role: "" });
    expect(addedBeyond([row("a"), row("b")], [row("b"), row("c"), row("c")])).toEqual([row("c")]);
  });

  it("counts a character added from the card only on the result it was added on", () => {
    const zed = { id: "z", name: "Zed", role: "", over: 6 };
    // The result the card added Zed on (6 characters), and a later one that counts Zed (7).
    expect(countWithAdded(6, [zed])).toBe(7);
    expect(countWithAdded(7, [zed])).toBe(7);
    // State saved before rows carried their count: the server's count alone.
    expect(countWithAdded(6, [{ id: "z", name: "Zed", role: "" }])).toBe(6);
  });
});

describe("the character editor", () => {
  it("keeps a trait with commas whole (one per line) and sends only the fields changed", () => {
    const loaded = { name: "Ana", role: "pilot", traits: "loyal, to a fault\nbrave", backstory: "Para one.\n\nPara two." };
    expect(traitsOf(loaded.traits)).toEqual(["loyal, to a fault", "brave"]);
    expect(changedFields(loaded, { ...loaded, name: "Ana B" })).toEqual({ name: "Ana B" });
    expect(changedFields(loaded, { ...loaded, traits: "loyal, to a fault\r\n\n brave \nquick" })).toEqual({ traits: ["loyal, to a fault", "brave", "quick"] });
    expect(changedFields(loaded, { ...loaded, name: " Ana " })).toEqual({});
  });
});

describe("the import limit", () => {
  it("is the server's: its document and file limit, and its default request body limit", () => {
    expect(MAX_IMPORT_BYTES).toBe(IMPORT_MAX_BYTES_DEFAULT);
    const env = loadEnv({});
    expect(MAX_IMPORT_BYTES).toBe(env.MCP_MAX_BODY_BYTES);
    expect(MAX_IMPORT_BYTES).toBe(env.MCP_IMPORT_MAX_BYTES);
  });
});

describe("the widget build", () => {
  it("fails (exit 1) when a widget is over its gzipped budget, and passes within it", () => {
    const over = spawnSync(process.execPath, ["widgets/build.mjs", "--budget-kb=1"], { cwd: ROOT, encoding: "utf8" });
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/world-card.*over 1 KB gzipped/);
    execFileSync(process.execPath, ["widgets/build.mjs"], { cwd: ROOT });
    const sizes = JSON.parse(readFileSync(join(ROOT, "widgets/dist/sizes.json"), "utf8")) as Record<string, { gzipBytes: number }>;
    for (const [name, { gzipBytes }] of Object.entries(sizes)) expect(gzipBytes, name).toBeLessThanOrEqual(60 * 1024);
  });
});

describe("an MCP Apps host's context", () => {
  const fallback = { theme: "light" as const, locale: "en-US" };
  const plain = { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], locale: "en-US", safeArea: { top: 0, right: 0, bottom: 0, left: 0 } };

  it("reads every field it knows, and leaves out modes it does not", () => {
    const context = { theme: "dark", displayMode: "fullscreen", availableDisplayModes: ["inline", "fullscreen", "theatre"], locale: "fr-FR", timeZone: "Europe/Paris", containerDimensions: { maxHeight: 500, width: 600 }, safeAreaInsets: { top: 4, right: 0, bottom: 8, left: 0 } };
    expect(hostContextOf(context, fallback)).toEqual({ theme: "dark", displayMode: "fullscreen", availableDisplayModes: ["inline", "fullscreen"], locale: "fr-FR", timeZone: "Europe/Paris", maxHeight: 500, safeArea: { top: 4, right: 0, bottom: 8, left: 0 } });
  });

  // Outside probe (2026-11-29): one field of the wrong type threw on every render (blank card).
  it("reads a field of the wrong type as absent, never throws", () => {
    const odd: unknown[] = [
      { availableDisplayModes: "fullscreen" },
      { containerDimensions: "tall" },
      { containerDimensions: { maxHeight: "500" } },
      { containerDimensions: { maxHeight: Number.NaN } },
      { theme: 7, locale: null, displayMode: ["inline"], timeZone: 3, safeAreaInsets: "none" },
      null,
      "context",
      [],
    ];
    for (const context of odd) expect(hostContextOf(context, fallback), JSON.stringify(context)).toEqual(plain);
  });
});

