#!/usr/bin/env node
/**
 * The widget browser tests drive Debian's Chromium (playwright-core downloads no browser). Before
 * `npm test` this makes sure one is there: CHROMIUM_PATH, /usr/bin/chromium, else `apt-get install
 * chromium` when this user may (root, or sudo without a password). Otherwise it says how, and the
 * browser tests fail with the same advice.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(Boolean);
if (candidates.some((p) => existsSync(p))) process.exit(0);

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const root = process.getuid?.() === 0;
const sudo = !root && has("sudo") && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
if (!has("apt-get") || (!root && !sudo)) {
  console.warn("No Chromium found for the widget browser tests: install Debian's `chromium` package (sudo apt-get install chromium) or set CHROMIUM_PATH.");
  process.exit(0);
}
const run = (args) => execFileSync(root ? args[0] : "sudo", root ? args.slice(1) : args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
console.log("Installing Chromium for the widget browser tests (apt-get install chromium)…");
try {
  run(["apt-get", "update", "-qq"]);
  run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]);
} catch (error) {
  console.warn(`Could not install Chromium: ${error instanceof Error ? error.message : error}`);
}
