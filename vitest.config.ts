import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-state.ts"],
    setupFiles: ["test/support/temp-dirs-cleanup.ts", "test/support/schema-violations.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
  },
});
