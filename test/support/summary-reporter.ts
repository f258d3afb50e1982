// Prints one plain closing line, "Tests: N passed, N failed[, N skipped]", after vitest's own
// summary, so logs read by machines (CI) need not parse vitest's coloured output.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const m of modules)
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    // A module that failed to load, or whose afterAll failed (test/support/temp-dirs.ts: a mount
    // left standing), has no failed test to count but is a failure all the same.
    counts.failed += modules.filter(
      (m) =>
        m.state() === 'failed' &&
        ![...m.children.allTests()].some((t) => t.result().state === 'failed'),
    ).length;
    const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
  }
}
