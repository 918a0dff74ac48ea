import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve, dirname } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/architecture.md's floors, as the imports are: a folder of lib/ imports only from floors
 * below its own (or from itself), so the core lifts out with what it stands on and nothing of the
 * app. An outside engineer found three imports running uphill (2026-11-29); this keeps them out.
 */
const FLOORS: Record<string, number> = {
  worlds: 2,
  bench: 2,
  conformance: 2,
  ratelimit: 3,
  cluster: 3,
  tasks: 3,
  "authorization-server": 3,
  mcp: 4,
  auth: 5,
  http: 6,
  db: 6,
  jsonrpc: 7,
  config: 7,
  text: 8,
  log: 8,
};
/** Imports across one floor that the architecture names. */
const SIDEWAYS = new Set(["ratelimit->cluster"]);

const LIB = resolve(__dirname, "../../lib");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sources(path);
    return /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}

/** The lib/ folder an import lands in, or undefined when it leaves lib/ (a package, node:). */
function targetFolder(file: string, specifier: string): string | undefined {
  const path = specifier.startsWith("@/lib/") ? join(LIB, specifier.slice("@/lib/".length)) : specifier.startsWith(".") ? resolve(dirname(file), specifier) : undefined;
  if (!path) return undefined;
  const inside = relative(LIB, path);
  return inside.startsWith("..") ? undefined : inside.split(/[\\/]/)[0];
}

describe("lib/ imports run downhill (docs/architecture.md)", () => {
  it("every folder of lib/ has a floor", () => {
    const folders = readdirSync(LIB).filter((name) => statSync(join(LIB, name)).isDirectory());
    expect(folders.filter((name) => FLOORS[name] === undefined)).toEqual([]);
  });

  it("no module imports from its own floor or one above it, but for the named exceptions", () => {
    const uphill: string[] = [];
    for (const file of sources(LIB)) {
      const from = relative(LIB, file).split(/[\\/]/)[0] as string;
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        const to = targetFolder(file, match[1] as string);
        if (!to || to === from) continue;
        const fine = (FLOORS[to] ?? 0) > (FLOORS[from] ?? 0) || SIDEWAYS.has(`${from}->${to}`);
        if (!fine) uphill.push(`${relative(LIB, file)} imports ${match[1]} (lib/${from} is floor ${FLOORS[from]}, lib/${to} floor ${FLOORS[to]})`);
      }
    }
    expect(uphill).toEqual([]);
  });
});
