import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_SCRIPT } from "../support/next-server.mjs";

/**
 * scripts/start.mjs (`npm start`): it must hand Next's CLI exactly `start <arguments>`, raise
 * the stream buffers before any server exists, and turn Node's compile cache on in the build's
 * folder. A stand-in `next` package in a temporary folder reports what it was given: the real one
 * is started through this script by every server test.
 */
const FAKE_NEXT_BIN = `
const http = require("node:http");
const { getDefaultHighWaterMark } = require("node:stream");
const nodeModule = require("node:module");
const server = http.createServer();
process.stdout.write(JSON.stringify({
  compileCacheDir: nodeModule.getCompileCacheDir ? nodeModule.getCompileCacheDir() ?? null : "unsupported",
  argv: process.argv.slice(2),
  script: process.argv[1],
  defaultBuffer: getDefaultHighWaterMark(false),
  serverBuffer: server.highWaterMark,
}));
`;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wc-start-"));
  await mkdir(join(dir, "node_modules", "next", "dist", "bin"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "start-script-probe", private: true }));
  await writeFile(join(dir, "node_modules", "next", "package.json"), JSON.stringify({ name: "next", version: "0.0.0-probe" }));
  await writeFile(join(dir, "node_modules", "next", "dist", "bin", "next"), FAKE_NEXT_BIN);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Seen {
  argv: string[];
  script: string;
  defaultBuffer: number;
  serverBuffer: number;
  /** The compile cache's folder; null when off; "unsupported" on a Node without one (20). */
  compileCacheDir: string | null;
}

async function start(args: string[], env: Record<string, string | undefined> = {}): Promise<Seen> {
  const { NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, [START_SCRIPT, ...args], { cwd: dir, env: { ...inherited, ...env } });
  return JSON.parse(stdout);
}

describe("scripts/start.mjs", () => {
  it("runs `next start` with the arguments it was given, from the working directory's next", async () => {
    const seen = await start(["-p", "4321", "-H", "127.0.0.1"]);
    expect(seen.argv).toEqual(["start", "-p", "4321", "-H", "127.0.0.1"]);
    expect(seen.script).toBe(join(dir, "node_modules", "next", "dist", "bin", "next"));
  });

  it("gives the server Node 22's 64 KiB stream buffers (Node 20's default is 16 KiB)", async () => {
    const seen = await start([]);
    expect(seen.defaultBuffer).toBe(64 * 1024);
    // The server copies the default when it is created: what its sockets and responses get.
    expect(seen.serverBuffer).toBe(64 * 1024);
  });

  const nodeMajor = Number(process.versions.node.split(".")[0]);

  /** Runs `body` with a .next folder in the stand-in project, as after a build, and removes it. */
  async function withBuildFolder(body: () => Promise<void>): Promise<void> {
    await mkdir(join(dir, ".next"), { recursive: true });
    try {
      await body();
    } finally {
      await rm(join(dir, ".next"), { recursive: true, force: true });
    }
  }

  it.runIf(nodeMajor >= 22)("turns Node's compile cache on, in the build's folder (which next build empties), not the shared temporary folder", async () => {
    await withBuildFolder(async () => {
      const seen = await start([]);
      // Node keeps each version's cache in a folder of its own inside the one given.
      expect(seen.compileCacheDir).toBe(join(dir, ".next", "node-compile-cache", basename(seen.compileCacheDir ?? "")));
      await mkdir(join(dir, "elsewhere-build"), { recursive: true });
      const moved = await start([], { NEXT_DIST_DIR: "elsewhere-build" });
      expect(moved.compileCacheDir).toBe(join(dir, "elsewhere-build", "node-compile-cache", basename(moved.compileCacheDir ?? "")));
    });
    // No build here (a directory given to `next start`, a wrong working directory): nothing is made.
    expect((await start([])).compileCacheDir).toBeNull();
  });

  it.runIf(nodeMajor >= 22)("leaves the compile cache to NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE when they are set", async () => {
    await withBuildFolder(async () => {
      const elsewhere = join(dir, "elsewhere");
      const chosen = (await start([], { NODE_COMPILE_CACHE: elsewhere })).compileCacheDir;
      expect(chosen).toBe(join(elsewhere, basename(chosen ?? "")));
      expect((await start([], { NODE_DISABLE_COMPILE_CACHE: "1" })).compileCacheDir).toBeNull();
    });
  });

  it.runIf(nodeMajor < 22)("starts on a Node without a compile cache (20)", async () => {
    const seen = await start([]);
    expect(seen.compileCacheDir).toBe("unsupported");
    expect(seen.argv).toEqual(["start"]);
  });
});
