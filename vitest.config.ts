import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // e2e tests spawn git, test runners and Nanocoder; two cores only.
    maxWorkers: 2,
  },
});
