import { configDefaults, defineConfig } from 'vitest/config';

// The capture script re-records test/fixtures/nanocoder/ from the real binary; it is a tool,
// not a test, so it runs only when asked: NANOBENCH_CAPTURE=1 npx vitest run test/agent/nanocoder-capture.test.ts
const capture = process.env.NANOBENCH_CAPTURE === '1';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: capture ? configDefaults.exclude : [...configDefaults.exclude, 'test/agent/nanocoder-capture.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // e2e tests spawn git, test runners and Nanocoder; two cores only.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
