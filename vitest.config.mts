import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["**/node_modules/**", "tests/conformance/**", "tests/reliability/**"],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // The servers are shared; files run in parallel against them like independent clients would.
    fileParallelism: true,
  },
});
