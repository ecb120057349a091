import { defineConfig } from "vitest/config";

export const config = defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Background reviews and title calls would take scripted model answers meant for the test; suites that test them turn them on.
    env: { HERMES_BACKGROUND_REVIEW: "off", HERMES_TITLE_GENERATION: "off" },
  },
});

// vitest requires a default export
export default config;
