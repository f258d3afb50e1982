// Every test file gets temporary directories of its own, removed when its tests end: one as
// TMPDIR (os.tmpdir() reads it at each call, and the CLIs a test starts inherit it) and one below
// /var/tmp for what must live outside /tmp (varTempDir in test/helpers/cli.ts). Whatever the file
// and the processes it started put there (mkdtemp, tempDir(), NanoBench's own scratch) goes with
// them, so `npm test` leaves no temporary directory behind. A mount still standing below them is
// a test that did not release what it made: it is unmounted, and the file fails naming it
// (release workspaces in the test itself, e.g. releaseWorkspace in onTestFinished).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { unmountUnder } from '../../src/workspace/layers.js';

const saved = {
  TMPDIR: process.env.TMPDIR,
  NANOBENCH_TEST_VAR_TMP: process.env.NANOBENCH_TEST_VAR_TMP,
};

/** A directory like /tmp itself: tests run NanoBench as nobody, who makes directories there too. */
function shared(parent: string): string {
  const dir = mkdtempSync(join(parent, 'nb-file-'));
  chmodSync(dir, 0o1777);
  return dir;
}

const mine = [shared(tmpdir()), shared(process.env.NANOBENCH_TEST_VAR_TMP ?? '/var/tmp')];
process.env.TMPDIR = mine[0];
process.env.NANOBENCH_TEST_VAR_TMP = mine[1];

afterAll(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  const mounted = mine.flatMap((dir) => unmountUnder(dir));
  for (const dir of mine)
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  if (mounted.length)
    throw new Error(
      `this test file left ${mounted.length} mount(s) standing (now unmounted): ${mounted.join(', ')}`,
    );
});
