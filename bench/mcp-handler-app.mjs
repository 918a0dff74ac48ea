// The comparison server for bench/run.mjs: Vercel's `mcp-handler` serving our trivial tool in a
// minimal Next.js app that the benchmark installs and builds in a folder of its own
// (bench/.work/mcp-handler/<key>) — never a dependency of the project.
//
// - Versions: the same next, react, react-dom and zod as the project (read from its node_modules),
//   so the two apps differ in the MCP layer only; mcp-handler and the SDK package it is built on
//   are pinned (BENCH_MCP_HANDLER_VERSION, BENCH_MCP_SERVER_VERSION). mcp-handler 2.x is built on
//   the v2 SDK's `@modelcontextprotocol/server` (its peer dependency), not `@modelcontextprotocol/sdk`
//   (1.x, which mcp-handler 1.x used).
// - The tool: suggest_names as lib/worlds/tools/suggest-names.ts defines it (same title, description,
//   input and output schemas, annotations) calling a copy of lib/worlds/names/name-forge.ts, so the
//   tools/call rows do the same work on both sides. registered with `server.registerTool` as
//   mcp-handler's README shows. The app also has /api/ceiling (the same bare route as ours) for the
//   readiness probe and for priming connections; it is not measured.
// - Cache: the folder's name is a hash of every version and every generated file, so a run reuses
//   an install and build made by an earlier one with the same inputs, and anything changed gets a
//   fresh folder. A folder is used only once its marker (written after a successful build) exists.
// - Failure (offline registry, build error, timeout) throws with the reason and the log's path;
//   run.mjs then skips the mcp-handler rows and says why — it never fails the whole bench.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CACHE_DIR = path.join(ROOT, "bench", ".work", "mcp-handler");
const MARKER = ".bench-ready.json";
/** Bump when the generated app changes in a way its files' text does not show. */
const LAYOUT_VERSION = 1;

const projectVersion = (pkg) => JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;

/** Exact versions the app is installed with. */
function wantedVersions() {
  return {
    dependencies: {
      next: projectVersion("next"),
      react: projectVersion("react"),
      "react-dom": projectVersion("react-dom"),
      zod: projectVersion("zod"),
      "mcp-handler": process.env.BENCH_MCP_HANDLER_VERSION || "2.4.0",
      "@modelcontextprotocol/server": process.env.BENCH_MCP_SERVER_VERSION || "2.4.0",
    },
    // `next build` type-checks a TypeScript app and refuses to run without these.
    devDependencies: {
      typescript: projectVersion("typescript"),
      "@types/node": projectVersion("@types/node"),
      "@types/react": projectVersion("@types/react"),
    },
  };
}

// The tool, as close to lib/worlds/tools/suggest-names.ts as mcp-handler's API allows (the `ui`
// hints and `security` of our defineTool have no equivalent there; they add _meta to tools/list).
const ROUTE = `import { createMcpHandler } from "mcp-handler";
import { z } from "zod";
import { NAME_KINDS, NAME_STYLE_IDS, forgeNames } from "../../../lib/name-forge";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = createMcpHandler(
  (server) => {
    server.registerTool(
      "suggest_names",
      {
        title: "Suggest Names",
        description:
          "Suggest fantasy names for people, places or realms in a given style. Deterministic: the same seed returns the same names.",
        inputSchema: z.object({
          style: z.enum(NAME_STYLE_IDS).describe("Naming style (culture) of the names"),
          kind: z.enum(NAME_KINDS).default("person").describe("What is being named"),
          count: z.number().int().min(1).max(20).default(5).describe("How many names (1-20)"),
          seed: z.string().max(100).optional().describe("Any text; the same seed gives the same names"),
        }),
        outputSchema: z.object({ style: z.string(), kind: z.string(), names: z.array(z.string()) }),
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false },
      },
      async ({ style, kind, count, seed }) => {
        const names = forgeNames(style, kind, count, seed ?? "worldcrafter");
        return {
          content: [{ type: "text" as const, text: \`\${names.length} \${style} \${kind} names: \${names.join(", ")}\` }],
          structuredContent: { style, kind, names },
        };
      },
    );
  },
  { serverInfo: { name: "bench-mcp-handler", version: "1.0.0" } },
);

export { handler as GET, handler as POST, handler as DELETE };
`;

const CEILING = `export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });

export function POST(): Response {
  return new Response(BODY, { headers: { "content-type": "application/json" } });
}
`;

const LAYOUT = `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`;

// The app's own root for Turbopack and file tracing: without it Next walks up, finds the
// project's lockfile and treats the project as the workspace root.
const NEXT_CONFIG = `import { fileURLToPath } from "node:url";
const root = fileURLToPath(new URL(".", import.meta.url));
export default { poweredByHeader: false, reactStrictMode: true, turbopack: { root }, outputFileTracingRoot: root };
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["dom", "dom.iterable", "ES2023"],
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: "esnext",
    moduleResolution: "bundler",
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: "react-jsx",
    incremental: false,
    plugins: [{ name: "next" }],
  },
  include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
  exclude: ["node_modules"],
};

/** Every file of the app, by relative path. */
function appFiles(versions) {
  return {
    "package.json": `${JSON.stringify({ name: "bench-mcp-handler-app", private: true, type: "module", ...versions }, null, 2)}\n`,
    "next.config.mjs": NEXT_CONFIG,
    "tsconfig.json": `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    "app/layout.tsx": LAYOUT,
    "app/api/[transport]/route.ts": ROUTE,
    "app/api/ceiling/route.ts": CEILING,
    "lib/name-forge.ts": fs.readFileSync(path.join(ROOT, "lib/worlds/names/name-forge.ts"), "utf8"),
  };
}

/** Runs `args` in `cwd`, output appended to `logFile`; rejects on a non-zero exit or after `timeoutMs`. */
function run(command, args, { cwd, env, logFile, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const log = fs.openSync(logFile, "a");
    fs.writeSync(log, `\n$ ${command} ${args.join(" ")}\n`);
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", log, log], detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      reject(new Error(`${command} ${args[0]} timed out after ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      fs.closeSync(log);
      reject(err);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      fs.closeSync(log);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.slice(0, 2).join(" ")} exited with ${signal ?? code}`));
    });
  });
}

/** What a failed step's log says: npm's first error lines (code, request), else the log's last lines. */
function reasonIn(file) {
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
  const errors = text.split("\n").filter((line) => /^npm error (code|errno|network|request to|notarget|404)/i.test(line));
  return (errors.length > 0 ? errors.slice(0, 3) : text.split("\n").slice(-4)).join(" ").replace(/\s+/g, " ").slice(0, 400);
}

/**
 * Installs (npm, from the registry) and builds the app, or reuses a cached one.
 * @returns {Promise<{ dir: string, nextBin: string, versions: Record<string, string>, cached: boolean, seconds: number }>}
 */
export async function prepareMcpHandlerApp({ log = console.log } = {}) {
  const started = Date.now();
  const versions = wantedVersions();
  const files = appFiles(versions);
  const key = createHash("sha256").update(JSON.stringify({ LAYOUT_VERSION, node: process.versions.node.split(".")[0], files })).digest("hex").slice(0, 16);
  const dir = path.join(CACHE_DIR, key);
  const nextBin = path.join(dir, "node_modules", "next", "dist", "bin", "next");
  const marker = path.join(dir, MARKER);
  if (fs.existsSync(marker) && fs.existsSync(path.join(dir, ".next", "BUILD_ID"))) {
    const ready = JSON.parse(fs.readFileSync(marker, "utf8"));
    return { dir, nextBin, versions: ready.installed, cached: true, seconds: (Date.now() - started) / 1000 };
  }

  fs.rmSync(dir, { recursive: true, force: true }); // an unfinished attempt: start over
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const logFile = path.join(dir, "install.log");
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };
  delete env.NEXT_DIST_DIR; // the project's build folder setting, not this app's
  const relLog = path.relative(ROOT, logFile);
  try {
    log(`[bench] mcp-handler app: npm install in ${path.relative(ROOT, dir)} (log ${relLog})`);
    // --ignore-scripts: nothing here needs an install script; --include=dev: `next build` needs typescript.
    await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--include=dev", "--fetch-retries=1", "--loglevel=warn"], {
      cwd: dir,
      env: { ...env, NODE_ENV: "development" },
      logFile,
      timeoutMs: 10 * 60_000,
    });
    log("[bench] mcp-handler app: next build");
    await run(process.execPath, [nextBin, "build"], { cwd: dir, env, logFile, timeoutMs: 10 * 60_000 });
  } catch (err) {
    const reason = reasonIn(logFile);
    throw new Error(`${err.message}${reason ? `: ${reason}` : ""} (log: ${relLog})`);
  }
  const installed = Object.fromEntries(
    Object.keys(versions.dependencies).map((pkg) => [pkg, JSON.parse(fs.readFileSync(path.join(dir, "node_modules", pkg, "package.json"), "utf8")).version]),
  );
  fs.writeFileSync(marker, `${JSON.stringify({ installed, builtAt: new Date().toISOString() }, null, 2)}\n`);
  return { dir, nextBin, versions: installed, cached: false, seconds: (Date.now() - started) / 1000 };
}
