import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // tsconfig's "@/*" paths, for code written as app code is (examples/, imported by tests).
  resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL("./", import.meta.url)) }] },
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["**/node_modules/**", "tests/conformance/**", "tests/reliability/**"],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // The servers are shared; files run in parallel against them like independent clients would.
    fileParallelism: true,
    // Files mostly wait on servers they start (a next start takes ~10 s) and on real time, not on
    // this CPU: vitest's default of one worker per core less one ran them one by one on 2 cores
    // (24.8 min). Three at once (12.1 min) starved the database and a health probe's 2 s when the
    // browser tests, a `next dev` and PGlite's migrations ran together; two keep one core spare.
    maxWorkers: 2,
  },
});
