import { configDefaults, defineConfig } from 'vitest/config';

// The capture script re-records test/fixtures/nanocoder/ from the real binary; it is a tool,
// not a test, so it runs only when asked: NANOBENCH_CAPTURE=1 npx vitest run test/agent/nanocoder-capture.test.ts
const capture = process.env.NANOBENCH_CAPTURE === '1';
const exclude = capture
  ? configDefaults.exclude
  : [...configDefaults.exclude, 'test/agent/nanocoder-capture.test.ts'];

// Tests that run trials or the built CLI (dist/), or need Redis, a browser, bubblewrap or the
// provisioning modes' packages (fuse-overlayfs, xfsprogs): the
// "e2e" project. Everything else is "unit" (`npm run test:unit`, the edit-test loop: no build, no
// system package). The helpers refuse to spawn the CLI or start Redis in the unit project, so a
// test listed in the wrong place fails instead of slowing the fast tier.
const E2E = [
  'test/e2e/**/*.test.ts',
  'test/agent/nanocoder.e2e.test.ts',
  'test/ci/comment.test.ts',
  'test/provider/proxy-cli.test.ts',
  'test/queue/coordinator.test.ts',
  'test/sandbox/bwrap.test.ts',
  'test/workspace/layers.test.ts',
  'test/view/cli.test.ts',
  'test/report/results-schema.test.ts',
  'test/provider/proxy-kinds-cli.test.ts',
  'test/support/temp-dirs.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // e2e tests spawn git, test runners and Nanocoder; two cores only.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // A TMPDIR of its own per test file, removed after it (nothing is left under the system tmp).
    setupFiles: ['./test/support/temp-dirs.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...exclude, ...E2E],
          env: { NANOBENCH_TEST_TIER: 'unit' },
        },
      },
      { extends: true, test: { name: 'e2e', include: E2E, exclude } },
    ],
  },
});
