import { defineConfig } from "vitest/config";

export const config = defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

// vitest requires a default export
export default config;
