#!/usr/bin/env node
/**
 * npm run dev: `next dev` with the widgets rebuilt on every change beside it (widgets/build.mjs
 * --watch rewrites lib/worlds/widgets/generated.ts, which next dev reloads). Arguments go to next.
 */
import { spawn } from "node:child_process";

const children = [
  spawn(process.execPath, ["widgets/build.mjs", "--watch"], { stdio: "inherit" }),
  spawn("npx", ["next", "dev", ...process.argv.slice(2)], { stdio: "inherit" }),
];
const stop = (code) => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exit(code);
};
for (const child of children) child.on("exit", (code) => stop(code ?? 0));
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
