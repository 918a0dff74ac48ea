#!/usr/bin/env node
/**
 * `npm run schemas:build`: writes lib/worlds/tools/generated-schemas.json, the JSON Schema every
 * WorldCrafter tool is published with (inputSchema, outputSchema), made from its zod schemas by the
 * core's own converter (lib/mcp/registry/published-schemas.ts). A production server publishes
 * these instead of converting them at its cold start (bench/PROFILING.md, round 28).
 *
 * `next build` runs it before compiling anything (next.config.ts), however the build is started, so
 * no build ships the schemas of an earlier one; `npm run dev` and `npm run typecheck` run it first
 * (the file is not in git, and both import it). It needs widgets:build's generated module, which
 * the tools import. The tool definitions are
 * bundled with esbuild (packages left external) into node_modules/.cache and imported from there.
 * The file is rewritten only when its content changes, so a watching dev server is not woken.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = path.join(ROOT, "lib/worlds/tools/generated-schemas.json");
// Inside the project, so the bundle's bare imports (zod, …) resolve from its node_modules.
const BUNDLE = path.join(ROOT, "node_modules/.cache/worldcrafter/tool-schemas.mjs");

mkdirSync(path.dirname(BUNDLE), { recursive: true });
await build({
  stdin: {
    contents: [
      'export { worldcrafterServer } from "./lib/worlds/server-definition";',
      'export { publishedSchemasOf } from "./lib/mcp/registry/published-schemas";',
    ].join("\n"),
    resolveDir: ROOT,
    loader: "ts",
    sourcefile: "tool-schemas-entry.ts",
  },
  outfile: BUNDLE,
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  logLevel: "warning",
});

const { worldcrafterServer, publishedSchemasOf } = await import(`${pathToFileURL(BUNDLE).href}?t=${Date.now()}`);
const tools = worldcrafterServer.contents.tools ?? [];
const text = `${JSON.stringify(publishedSchemasOf(tools), null, 1)}\n`;
if (!existsSync(OUTPUT) || readFileSync(OUTPUT, "utf8") !== text) writeFileSync(OUTPUT, text);
console.log(`tool schemas: ${tools.length} tools → ${path.relative(ROOT, OUTPUT)} (${Buffer.byteLength(text)} bytes)`);
// The definitions' modules may hold handles open (timers, pools created lazily): nothing here needs them.
process.exit(0);
