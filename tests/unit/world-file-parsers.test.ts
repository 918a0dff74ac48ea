import { describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import type { Character, Location } from "../../lib/db/generated/client";
import { renderMarkdown } from "../../lib/worlds/export/markdown";
import { parseMarkdownWorld } from "../../lib/worlds/import/markdown-world";
import { parseJsonWorld } from "../../lib/worlds/import/json-world";
import { WorldFileProblems } from "../../lib/worlds/import/world-document";
import { MAX_LOCATION_DEPTH } from "../../lib/worlds/data/location-depth";
import { EXPORT_FORMAT } from "../../lib/worlds/export/world-export";
import { isLoopbackAddress, isNonPublicAddress } from "../../lib/config/address-range";
import { CLOCK_SKEW_SECONDS, MAX_TOKEN, signDownloadToken, verifyDownloadToken } from "../../lib/worlds/files/download-token";
import { contentDisposition, downloadFileName, exportFileName } from "../../lib/worlds/files/download-link";

/**
 * The world-file readers on their own: the Markdown exporter's output parsed back to the same
 * world, however hostile the text in it (markup, entities, headings and the exporter's own labels
 * typed into prose); problems named by line or JSON path. Plus the pure pieces of download links
 * and the SSRF address rules. End-to-end behaviour is in tests/worlds/world-files.test.ts.
 */

const at = new Date("2026-01-01T00:00:00Z");
const character = (c: Partial<Character> & { name: string }): Character =>
  ({ id: `c-${c.name}`, ownerSubject: "o", worldId: "w", role: "", traits: [], backstory: "", createdAt: at, updatedAt: at, ...c }) as Character;
const location = (l: Partial<Location> & { id: string; name: string }): Location =>
  ({ ownerSubject: "o", worldId: "w", kind: "", description: "", parentId: null, createdAt: at, updatedAt: at, ...l }) as Location;

const problemsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (thrown) {
    if (thrown instanceof WorldFileProblems) return thrown.problems;
    throw thrown;
  }
  throw new Error("expected WorldFileProblems");
};

describe("Markdown export read back", () => {
  const world = {
    name: "Salt & <Pepper> **Isles** #1",
    theme: "sea\\punk [x](y)",
    tone: "wry · *Tone:* odd",
    description: "## Characters (9)\n\nA land of [links](javascript:alert(1)) and <b>tags</b> & &lt;entities&gt;.\n\n### Not a character\n  # nor a title",
  };
  const characters = [
    character({ name: "Ada — the First", role: "", traits: [] }),
    character({ name: "Bo_b*", role: "guard (night)", traits: ["brave, mostly", "a\\b", "#1"], backstory: "*Traits:* none really\n\n## Locations (0)\nsecond line" }),
    character({ name: "Cy", role: "— dash", traits: ["x"], backstory: "[ref]: javascript:alert(1)\nplain" }),
  ];
  const locations = [
    location({ id: "city", name: "City (old)", kind: "city **big**", description: "Walls — of glass" }),
    location({ id: "inn", name: "Inn*", kind: "", description: "", parentId: "city" }),
    location({ id: "cellar", name: "Cellar", kind: "room", parentId: "inn" }),
    location({ id: "port", name: "Port", kind: "harbour" }),
  ];

  it("gives back the same world, characters and location tree", () => {
    const markdown = renderMarkdown(world, characters, locations);
    const doc = parseMarkdownWorld(markdown);
    expect(doc.world).toEqual({ ...world, description: world.description.trim() });
    // "Ada — the First", a name containing the role separator, included.
    expect(doc.characters).toEqual(characters.map((c) => ({ name: c.name, role: c.role, traits: c.traits, backstory: c.backstory })));
    expect(doc.locations.map((l) => [l.name, l.kind, l.description])).toEqual(locations.map((l) => [l.name, l.kind, l.description]));
    const parentName = (i: number) => doc.locations.find((l) => l.key === doc.locations[i]!.parentKey)?.name ?? null;
    expect([0, 1, 2, 3].map(parentName)).toEqual([null, "City (old)", "Inn*", null]);
  });

  it("reads CRLF line ends and a byte order mark", () => {
    const markdown = renderMarkdown(world, characters, locations);
    expect(parseMarkdownWorld(`\uFEFF${markdown.replace(/\n/g, "\r\n")}`)).toEqual(parseMarkdownWorld(markdown));
  });

  it("names the line of what is wrong", () => {
    expect(problemsOf(() => parseMarkdownWorld("hello\n"))[0]).toMatch(/^line 1: expected the world's title/);
    expect(problemsOf(() => parseMarkdownWorld("# W\n\n*Theme:* t\n\n## Characters (2)\n\n### A\n\n## Locations (0)\n"))[0]).toBe("line 5: the heading says 2 characters but 1 follow");
    expect(problemsOf(() => parseMarkdownWorld("# W\n*Theme:* t\n## Characters (0)\n## Locations (1)\n- **A** (x\n"))[0]).toBe("line 5: the location's kind has no closing )");
    expect(problemsOf(() => parseMarkdownWorld("# W\n*Theme:* t\n## Characters (0)\n## Locations (1)\n    - **A**\n"))[0]).toBe("line 5: indented more than one level below the location above it");
    expect(problemsOf(() => parseMarkdownWorld(`# ${"n".repeat(121)}\n*Theme:* t\n## Characters (0)\n## Locations (0)\n`))[0]).toMatch(/^line 1: world name: /);
    expect(problemsOf(() => parseMarkdownWorld("# W\n*Theme:* t\n## Characters (1)\n### \n## Locations (0)\n"))[0]).toMatch(/^line 4: character 1 name: /);
  });
});

describe("Markdown export read back: what an outside audit found lost", () => {
  const bare = { name: "W", theme: "t", tone: "", description: "" };

  it("keeps the backslashes the user typed in prose, next to the exporter's own escapes", () => {
    const world = { ...bare, description: "\\# literal\n# heading-like\nsee ]\\( here and \\]: there\n[a\\]: javascript:alert(1)\n&#35; typed" };
    const hero = character({ name: "Hero", backstory: "\\*Traits:* x\n\n\\\\# two" });
    const twin = character({ name: "Twin", backstory: "*Traits:* fake\n[x](javascript:alert(1))" });
    const markdown = renderMarkdown(world, [hero, twin], []);
    const doc = parseMarkdownWorld(markdown);
    expect(doc.world.description).toBe(world.description);
    expect(doc.characters.map((c) => c.backstory)).toEqual([hero.backstory, twin.backstory]);
    // Still defused: no heading, no live script link, no reference definition (CommonMark §4.7).
    expect(markdown).not.toMatch(/^ {0,3}#+ (heading-like|two)/m);
    expect(markdown).not.toMatch(/\]\(javascript:/);
    expect(markdown).not.toMatch(/\]:\s*javascript:/);
  });

  it("a location whose description is white space alone reads back, also with its line's end trimmed", () => {
    const harbour = location({ id: "h", name: "Harbour", kind: "port", description: "   " });
    const markdown = renderMarkdown(bare, [], [harbour]);
    expect(markdown.trimEnd().split("\n").at(-1)).toBe("- **Harbour** (port)");
    expect(parseMarkdownWorld(markdown).locations.map((l) => [l.name, l.kind, l.description])).toEqual([["Harbour", "port", ""]]);
    // An earlier export, or an editor, left the separator without its space.
    expect(parseMarkdownWorld(`${markdown.trimEnd()} —\n`).locations[0]?.description).toBe("");
  });

  it("names the line that is wrong: not one past the end, not a later heading", () => {
    expect(problemsOf(() => parseMarkdownWorld("   \n\n"))).toEqual(["line 1: the file is empty (is this a WorldCrafter Markdown export?)"]);
    expect(problemsOf(() => parseMarkdownWorld("# W\n\n\n"))[0]).toMatch(/^line 1: the file ends here; expected the world's theme line/);
    expect(problemsOf(() => parseMarkdownWorld("# W\n\n*Theme:* fantasy\n\n## Characters (1e3)\n\n## Locations (0)\n"))[0]).toBe(
      "line 5: expected `## Characters (N)`, N the number of characters as digits",
    );
    expect(problemsOf(() => parseMarkdownWorld("# W\n*Theme:* t\n## Characters (0)\n## Locations (x)\n"))[0]).toBe(
      "line 4: expected `## Locations (N)`, N the number of locations as digits",
    );
    expect(problemsOf(() => parseMarkdownWorld("# W\n*Theme:* t\n## Characters (99999999999999999999999)\n## Locations (0)\n"))[0]).toBe(
      "line 3: the heading says 99999999999999999999999 characters but 0 follow",
    );
  });
});

describe("Markdown export read back: names next to a heading's separator", () => {
  const bare = { name: "W", theme: "t", tone: "", description: "" };
  const roundTrip = (characters: Character[], locations: Location[] = [], world = bare) => parseMarkdownWorld(renderMarkdown(world, characters, locations));

  it("a character name ending, starting or made of ` — ` keeps its role apart (outside review; a fuzz's `x( —` / `{`)", () => {
    const characters = [
      character({ name: "Ana —", role: "hero" }),
      character({ name: "x( —", role: "{" }),
      character({ name: "Ada — the First" }),
      character({ name: "— — —", role: "— —" }),
      character({ name: "Jean—Paul —", role: "— lead —" }),
      character({ name: "a &#8212; b —", role: "&#8212;" }),
    ];
    const markdown = renderMarkdown(bare, characters, []);
    // Markdown renders the reference as the dash that was typed; only the ambiguous dash is written so.
    expect(markdown).toContain("### Ana &#8212; — hero");
    expect(markdown).toContain("### Jean—Paul &#8212; — — lead —");
    expect(roundTrip(characters).characters.map((c) => [c.name, c.role])).toEqual(characters.map((c) => [c.name, c.role]));
  });

  it("an export written before the dash was escaped reads as it did", () => {
    const old = "# W\n\n*Theme:* t\n\n## Characters (2)\n\n### Ana — hero — brave\n\n### a &amp;#8212; b\n\n## Locations (0)\n";
    expect(parseMarkdownWorld(old).characters.map((c) => [c.name, c.role])).toEqual([
      ["Ana", "hero — brave"],
      ["a &#8212; b", ""],
    ]);
  });

  it("every inline field built from tricky pieces comes back as typed (white space runs aside)", () => {
    // The pieces of the layout's separators and escapes, and the characters escapeInline escapes.
    const piece = fc.constantFrom(" — ", "—", " —", "— ", " ", "-", "\\", "*", "**", "#", "(", ")", "[", "]", "&", "&#8212;", "&amp;", "&lt;", ",", ", ", " · ", "*Tone:*", "`", "_", "!", ".", "a", "Z", "é");
    const text = (min: number) => fc.array(piece, { minLength: min, maxLength: 8 }).map((parts) => parts.join(""));
    // What the create tools store: trimmed, one line. The Markdown layout flattens runs of white space.
    const flat = (s: string) => s.replace(/\s+/g, " ").trim();
    const name = text(1).filter((s) => flat(s) !== "");
    const person = fc.record({ name, role: text(0), traits: fc.array(name, { maxLength: 3 }) });
    const place = fc.record({ name, kind: text(0), description: text(0) });
    const head = fc.record({ name, theme: name, tone: text(0) });
    fc.assert(
      fc.property(head, fc.array(person, { maxLength: 4 }), fc.array(place, { maxLength: 4 }), (w, people, places) => {
        const world = { name: flat(w.name), theme: flat(w.theme), tone: flat(w.tone), description: "" };
        const characters = people.map((p, i) => character({ id: `c${i}`, name: flat(p.name), role: flat(p.role), traits: p.traits.map(flat) }));
        const locations = places.map((p, i) => location({ id: `l${i}`, name: flat(p.name), kind: flat(p.kind), description: flat(p.description), parentId: i > 0 ? `l${i - 1}` : null }));
        const doc = parseMarkdownWorld(renderMarkdown(world, characters, locations));
        expect(doc.world).toEqual(world);
        expect(doc.characters.map((c) => [c.name, c.role, c.traits])).toEqual(characters.map((c) => [c.name, c.role, c.traits]));
        expect(doc.locations.map((l) => [l.name, l.kind, l.description])).toEqual(locations.map((l) => [l.name, l.kind, l.description]));
        expect(doc.locations.map((l) => doc.locations.findIndex((p) => p.key === l.parentKey))).toEqual(locations.map((_, i) => i - 1));
      }),
      { numRuns: 500 },
    );
  });
});

describe("location depth", () => {
  const chain = (levels: number): Location[] =>
    Array.from({ length: levels }, (_, i) => location({ id: `l${i}`, name: `Level ${i + 1}`, parentId: i === 0 ? null : `l${i - 1}` }));

  it("a tree as deep as the bound is exported and read back whole; one level more is refused by name", () => {
    const world = { name: "Deep", theme: "caves", tone: "", description: "" };
    const deepest = renderMarkdown(world, [], chain(MAX_LOCATION_DEPTH));
    expect(parseMarkdownWorld(deepest).locations.at(-1)).toMatchObject({ name: `Level ${MAX_LOCATION_DEPTH}` });
    const json = (levels: number) =>
      JSON.stringify({ format: EXPORT_FORMAT, world: { name: "Deep", theme: "caves" }, characters: [], locations: chain(levels).map((l) => ({ id: l.id, name: l.name, parentId: l.parentId })) });
    expect(parseJsonWorld(json(MAX_LOCATION_DEPTH)).locations).toHaveLength(MAX_LOCATION_DEPTH);
    expect(problemsOf(() => parseJsonWorld(json(MAX_LOCATION_DEPTH + 1)))).toEqual([
      `$.locations[${MAX_LOCATION_DEPTH}].parentId: it lies more than ${MAX_LOCATION_DEPTH} levels deep (locations nest at most ${MAX_LOCATION_DEPTH} levels)`,
    ]);
  });

  it("a tree stored deeper than the bound still exports, every location once, in a file that grows linearly", () => {
    // 20,000 levels overflowed the recursive walk's stack; indenting each level further made the
    // file quadratic in the depth (400 MB here).
    const levels = 20_000;
    const markdown = renderMarkdown({ name: "Abyss", theme: "caves", tone: "", description: "" }, [], chain(levels));
    const items = markdown.split("\n").filter((line) => line.trimStart().startsWith("- **"));
    expect(items).toHaveLength(levels);
    expect(items[levels - 1]).toBe(`${"  ".repeat(MAX_LOCATION_DEPTH - 1)}- **Level ${levels}**`);
    expect(markdown.length).toBeLessThan(levels * 100);
  });
});

describe("JSON export read back", () => {
  const exported = {
    format: "worldcrafter.world/v1",
    world: { id: "w", name: "W", theme: "t", tone: "", description: "d", counts: { characters: 1, locations: 2 } },
    characters: [{ id: "c", name: "A", role: "r", traits: ["x"], backstory: "b" }],
    locations: [
      { id: "l2", name: "Inn", kind: "", description: "", parentId: "l1" },
      { id: "l1", name: "City", kind: "city", description: "", parentId: null },
    ],
  };

  it("reads the fields a world is made of, parents by id in any order", () => {
    const doc = parseJsonWorld(JSON.stringify(exported));
    expect(doc.world).toEqual({ name: "W", theme: "t", tone: "", description: "d" });
    expect(doc.characters).toEqual([{ name: "A", role: "r", traits: ["x"], backstory: "b" }]);
    expect(doc.locations.map((l) => [l.key, l.parentKey])).toEqual([["l2", "l1"], ["l1", null]]);
  });

  it("names the JSON path or the position of what is wrong", () => {
    // The line and column when the engine's message gives a position (V8's wording varies by version).
    expect(problemsOf(() => parseJsonWorld('{"format": "worldcrafter.world/v1",\n "world": }'))[0]).toMatch(/^not valid JSON( \(line 2, column \d+\))?: Unexpected token/);
    expect(problemsOf(() => parseJsonWorld(JSON.stringify({ ...exported, format: "other" })))[0]).toMatch(/^\$\.format: must be "worldcrafter\.world\/v1"/);
    expect(problemsOf(() => parseJsonWorld(JSON.stringify({ ...exported, characters: [{ name: "" }] })))[0]).toMatch(/^\$\.characters\[0\]\.name: /);
    const dangling = { ...exported, locations: [{ id: "a", name: "A", parentId: "zz" }] };
    expect(problemsOf(() => parseJsonWorld(JSON.stringify(dangling)))).toEqual(['$.locations[0].parentId: names no location of this file ("zz")']);
    const cycle = { ...exported, locations: [{ id: "a", name: "A", parentId: "b" }, { id: "b", name: "B", parentId: "a" }] };
    expect(problemsOf(() => parseJsonWorld(JSON.stringify(cycle)))[0]).toBe("$.locations[0].parentId: its parents form a cycle");
    const many = { ...exported, characters: Array.from({ length: 1001 }, (_, i) => ({ name: `C${i}` })) };
    expect(problemsOf(() => parseJsonWorld(JSON.stringify(many)))[0]).toBe("$.characters: at most 1000 characters per import");
  });
});

describe("control characters in a world file", () => {
  // The rule create_world's arguments follow (lib/mcp/runtime/validate.ts): NUL would be
  // PostgreSQL 22021, BEL and ESC are stored terminal junk; tab and newlines stay in prose.
  const controls = { NUL: "\u0000", BEL: "\u0007", ESC: "\u001b[31m" };
  const json = (patch: { description?: string; backstory?: string; place?: string }) =>
    JSON.stringify({
      format: "worldcrafter.world/v1",
      world: { name: "W", theme: "t", tone: "", description: patch.description ?? "d" },
      characters: [{ name: "A", role: "", traits: [], backstory: patch.backstory ?? "b" }],
      locations: [{ id: "l1", name: "City", kind: "", description: patch.place ?? "", parentId: null }],
    });
  const markdown = (patch: { description?: string; backstory?: string; place?: string }) =>
    `# W\n*Theme:* t\n${patch.description ?? "d"}\n## Characters (1)\n### A\n${patch.backstory ?? "b"}\n## Locations (1)\n- **City** — ${patch.place ?? "p"}\n`;

  for (const [label, control] of Object.entries(controls)) {
    it(`refuses ${label} in a description, a backstory and a location's description, naming the field`, () => {
      expect(problemsOf(() => parseJsonWorld(json({ description: `a${control}b` })))).toEqual(["$.world.description: Control characters are not allowed"]);
      expect(problemsOf(() => parseJsonWorld(json({ backstory: `a${control}b` })))).toEqual(["$.characters[0].backstory: Control characters are not allowed"]);
      expect(problemsOf(() => parseJsonWorld(json({ place: `a${control}b` })))).toEqual(["$.locations[0].description: Control characters are not allowed"]);
      expect(problemsOf(() => parseMarkdownWorld(markdown({ description: `a${control}b` })))).toEqual(["line 3: world description: Control characters are not allowed"]);
      expect(problemsOf(() => parseMarkdownWorld(markdown({ backstory: `a${control}b` })))).toEqual(["line 5: character 1 backstory: Control characters are not allowed"]);
      expect(problemsOf(() => parseMarkdownWorld(markdown({ place: `a${control}b` })))).toEqual(["line 8: location 1 description: Control characters are not allowed"]);
    });
  }

  it("refuses them in the raw JSON text too (a \\u escape), and keeps tab and newlines in prose", () => {
    expect(problemsOf(() => parseJsonWorld(json({ backstory: "x" }).replace('"backstory":"x"', '"backstory":"a\\u0000b"')))).toEqual(["$.characters[0].backstory: Control characters are not allowed"]);
    expect(parseJsonWorld(json({ backstory: "a\tb\r\nc" })).characters[0]?.backstory).toBe("a\tb\r\nc");
    expect(parseMarkdownWorld(markdown({ backstory: "a\tb" })).characters[0]?.backstory).toBe("a\tb");
  });
});

describe("download tokens", () => {
  const key = Buffer.alloc(32, 7);
  const grant = { subject: "user-1", worldId: "w1", format: "md" as const, expiresAt: new Date(Date.now() + 60_000) };
  const ttl = 900;

  it("verify only unaltered, unexpired tokens signed with the key", () => {
    const token = signDownloadToken(key, grant);
    expect(verifyDownloadToken(key, token, ttl)).toMatchObject({ subject: "user-1", worldId: "w1", format: "md" });
    expect(verifyDownloadToken(Buffer.alloc(32, 8), token, ttl)).toBeUndefined();
    const [body, mac] = token.split(".") as [string, string];
    const swapped = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), w: "w2" })).toString("base64url");
    expect(verifyDownloadToken(key, `${swapped}.${mac}`, ttl)).toBeUndefined();
    expect(verifyDownloadToken(key, signDownloadToken(key, { ...grant, expiresAt: new Date(Date.now() - 1000) }), ttl)).toBeUndefined();
    for (const junk of ["", ".", "abc", `${body}.`, "x".repeat(5000)]) expect(verifyDownloadToken(key, junk, ttl)).toBeUndefined();
  });

  // Outside probe (2026-11-29): a valid token's subject of 256 control characters made a token
  // longer than the 2 KB read, so its link was refused as soon as it was issued.
  it("verify every token signed for the longest subjects and world ids, escapes and all", () => {
    const subjects = ["\u0001".repeat(256), "\u0001".repeat(512), "\ud800".repeat(512), "\u{1F600}".repeat(256), "a".repeat(512)];
    for (const subject of subjects) {
      const worldId = "\u001f".repeat(64);
      const token = signDownloadToken(key, { ...grant, subject, worldId });
      expect(token.length).toBeLessThanOrEqual(MAX_TOKEN);
      expect(verifyDownloadToken(key, token, ttl)).toMatchObject({ subject, worldId });
    }
    expect(verifyDownloadToken(key, "a".repeat(MAX_TOKEN + 1), ttl)).toBeUndefined();
  });

  it("verify only the canonical encoding of the signature", () => {
    const token = signDownloadToken(key, grant);
    const [body, mac] = token.split(".") as [string, string];
    // 32 bytes in base64url: 43 characters, the last carrying 2 unused bits a lenient decoder ignores.
    const last = mac.at(-1) as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] as string;
    expect(Buffer.from(`${mac.slice(0, -1)}${sibling}`, "base64url").equals(Buffer.from(mac, "base64url"))).toBe(true);
    expect(verifyDownloadToken(key, `${body}.${mac.slice(0, -1)}${sibling}`, ttl)).toBeUndefined();
    expect(verifyDownloadToken(key, `${body}.${mac}=`, ttl)).toBeUndefined();
    expect(verifyDownloadToken(key, `${body}.${mac}==`, ttl)).toBeUndefined();
  });

  it("refuse an expiry further ahead than the configured lifetime allows", () => {
    const now = Date.now();
    const far = signDownloadToken(key, { ...grant, expiresAt: new Date(now + (ttl + CLOCK_SKEW_SECONDS + 5) * 1000) });
    expect(verifyDownloadToken(key, far, ttl, now)).toBeUndefined();
    const skewed = signDownloadToken(key, { ...grant, expiresAt: new Date(now + (ttl + CLOCK_SKEW_SECONDS - 5) * 1000) });
    expect(verifyDownloadToken(key, skewed, ttl, now)).toBeDefined();
  });

  it("name files safely", () => {
    expect(exportFileName("Élan / ../../etc \"passwd\"", "md")).toBe("Elan-..-..-etc-passwd.md");
    expect(exportFileName("...", "json")).toBe("world.json");
    expect(exportFileName("世界", "md")).toBe("world.md");
    expect(downloadFileName("世界", "md")).toBe("世界.md");
    expect(downloadFileName("Isles & <Reefs>", "md")).toBe("Isles-Reefs.md");
    expect(contentDisposition("Isles & <Reefs>", "md")).toBe('attachment; filename="Isles-Reefs.md"');
    expect(contentDisposition("世界", "md")).toBe(`attachment; filename="world.md"; filename*=UTF-8''${encodeURIComponent("世界.md")}`);
    expect(contentDisposition("Élan (d'or) / *x*", "json")).toBe("attachment; filename=\"Elan-d-or-x.json\"; filename*=UTF-8''%C3%89lan-d-or-x.json");
    expect(contentDisposition("Ünïcode's (world)", "md")).toMatch(/filename\*=UTF-8''%C3%9Cn%C3%AFcode-s-world\.md$/);
  });
});

describe("addresses a file fetch may not reach", () => {
  it("refuses private, loopback, link-local and unique-local addresses in every spelling", () => {
    for (const a of ["10.0.0.1", "127.0.0.1", "169.254.169.254", "172.16.5.4", "192.168.1.1", "100.64.0.1", "0.0.0.0", "::1", "[::1]", "::", "fd00::1", "fe80::1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "::ffff:7f00:1", "64:ff9b::a00:1", "::10.0.0.1", "::127.0.0.1", "::a00:1", "::8.8.8.8", "::ffff:0:7f00:1", "::ffff:0:808:808"]) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    // IETF protocol assignments (Teredo embeds an IPv4 server: 127.0.0.1 here), ORCHID, the
    // documentation ranges, SRv6 and anything else outside global unicast, the 6to4 relay anycast.
    for (const a of ["2001:0:7f00:1::", "2001::", "2001:10::1", "2001:20::1", "2001:2::1", "3fff::1", "5f00::1", "4000::1", "192.88.99.1"]) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    for (const a of ["93.184.216.34", "2606:4700::1111", "::ffff:93.184.216.34", "2001:4860:4860::8888", "2a00:1450:4001::1"]) expect(isNonPublicAddress(a), a).toBe(false);
    expect(isLoopbackAddress("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackAddress("10.0.0.1")).toBe(false);
  });
});

describe("the world card's redirect domain", () => {
  it("is the app's public https origin, so ChatGPT opens download links from the card", async () => {
    const saved = process.env.MCP_RESOURCE_URL;
    process.env.MCP_RESOURCE_URL = "https://worlds.example.com/api/mcp";
    try {
      vi.resetModules();
      const { worldCardWidget, worldListWidget } = await import("../../lib/worlds/widgets");
      const { widgetResource } = await import("../../lib/mcp/registry/widgets");
      const csp = (widget: typeof worldCardWidget) => widgetResource(widget).meta?.["openai/widgetCSP"] as Record<string, unknown>;
      expect(csp(worldCardWidget).redirect_domains).toEqual(["https://worlds.example.com"]);
      expect(csp(worldListWidget).redirect_domains).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.MCP_RESOURCE_URL;
      else process.env.MCP_RESOURCE_URL = saved;
      vi.resetModules();
    }
  });
});
