import { defineConfig } from "vitest/config";

/**
 * npm run test:reliability: fuzz, soak and faults against production servers each file starts
 * for itself (`next build` first). One file at a time: their load must not distort each other.
 */
export default defineConfig({
  test: {
    include: ["tests/reliability/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
