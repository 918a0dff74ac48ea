#!/usr/bin/env node
/**
 * npm run dev: `next dev` with the widgets rebuilt on every change beside it (widgets/build.mjs
 * --watch rewrites lib/worlds/widgets/generated.ts, which next dev reloads). Arguments go to next.
 *
 * `next dev` runs with scripts/node-front-preload.mjs preloaded, so the same front as `npm start`
 * (lib/http/node-front.mjs) stands before it: a TRACE gets 501, not a 500 with a stack.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(path.join(process.cwd(), "package.json"));
const nextBin = require.resolve("next/dist/bin/next");
const preload = pathToFileURL(path.join(import.meta.dirname, "node-front-preload.mjs")).href;

const children = [
  spawn(process.execPath, ["widgets/build.mjs", "--watch"], { stdio: "inherit" }),
  spawn(process.execPath, ["--import", preload, nextBin, "dev", ...process.argv.slice(2)], { stdio: "inherit" }),
];
const stop = (code) => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exit(code);
};
for (const child of children) child.on("exit", (code) => stop(code ?? 0));
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
