/**
 * Loads lib/worlds/endpoint.ts the way it runs in production: bundled into one module (esbuild,
 * packages left external, a source map beside it for bench/profile-top.mjs), not through jiti.
 * jiti wraps every module in an interop Proxy, so each imported binding the core reads on a
 * request went through a Proxy trap and a Map lookup: 2–4 µs of a trivial tools/call that no
 * deployed build pays (bench/PROFILING.md, round 18).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "bench/.work/core");

/**
 * Bundles `entry` (a path from the repository's root) and imports it. The bundle goes in a folder
 * named by its content, so processes started together (bench/core-instructions.mjs) never read a
 * file another is writing, and its source map stays for bench/profile-top.mjs after they exit.
 */
export async function importBundled(entry) {
  const name = `${path.basename(entry, ".ts")}.mjs`;
  // Built in memory for a folder at the final one's depth: the map's relative sources stay right.
  const { outputFiles } = await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile: path.join(OUT, "pending", name),
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    sourcemap: "external",
    logLevel: "warning",
    write: false,
  });
  const code = outputFiles.find((file) => file.path.endsWith(".mjs"));
  const dir = path.join(OUT, createHash("sha256").update(code.contents).digest("hex").slice(0, 16));
  if (!existsSync(path.join(dir, name))) {
    mkdirSync(dir, { recursive: true });
    // The map first, then the module, each renamed into place whole.
    for (const file of [...outputFiles].sort((a) => (a === code ? 1 : -1))) {
      const target = path.join(dir, path.basename(file.path));
      writeFileSync(`${target}.${process.pid}`, file.contents);
      renameSync(`${target}.${process.pid}`, target);
    }
  }
  return import(pathToFileURL(path.join(dir, name)).href);
}
