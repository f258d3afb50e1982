// Issue #22: `npm test` leaves nothing behind. Each test file's temporary directories go with it,
// and a mount a test left standing fails the file, naming it (test/support/temp-dirs.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';
import { isRoot } from '../helpers/processes.js';

function runFixture(env: Record<string, string>) {
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      'test/fixtures/leaky/vitest.config.ts',
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env, NO_COLOR: '1' } },
  );
  const made = /MADE (\S+) (\S+)/.exec(r.stdout)?.slice(1) ?? [];
  return { code: r.status, out: r.stdout + r.stderr, made };
}

describe("a test file's temporary directories", () => {
  it('are removed when its tests end, under the /tmp and /var/tmp it was given', () => {
    const parents = { TMPDIR: tempDir(), NANOBENCH_TEST_VAR_TMP: tempDir() };
    const r = runFixture(parents);
    expect(r.code, r.out).toBe(0);
    expect(r.made).toHaveLength(2);
    expect(r.made[0].startsWith(`${parents.TMPDIR}/nb-file-`)).toBe(true);
    expect(r.made[1].startsWith(`${parents.NANOBENCH_TEST_VAR_TMP}/nb-file-`)).toBe(true);
    for (const dir of r.made) expect(existsSync(dir)).toBe(false);
  });

  it.skipIf(!isRoot)('fail the file when a mount is left standing, and unmount it', () => {
    const r = runFixture({ NB_LEAK: 'mount', TMPDIR: tempDir() });
    expect(r.code).not.toBe(0);
    const ws = join(r.made[0], 'ws');
    expect(r.out).toContain(`this test file left 1 mount(s) standing (now unmounted): ${ws}`);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(ws);
    expect(existsSync(r.made[0])).toBe(false);
  });
});
