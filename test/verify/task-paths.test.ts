// Issue 22 §4: the points of use check a task's paths on the disk too. A task loaded through the
// schema never names an escaping path, but its repository may hold a symlink that leads outside
// the workspace: nothing may be removed or read through it.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedTask } from '../../src/task/patches.js';
import type { TestSuite } from '../../src/task/schema.js';
import { containedPath, diskEscape, pathEscape } from '../../src/util/contained-path.js';
import { InfraError } from '../../src/util/errors.js';
import { restoreInfrastructure } from '../../src/verify/harden.js';
import { protectedTestPaths, restoreTests } from '../../src/verify/restore.js';
import { runSuite } from '../../src/verify/verifier.js';

/** A workspace and its snapshot, both holding `link` -> a directory outside with a victim file. */
function withOutsideLink() {
  const root = mkdtempSync(join(tmpdir(), 'nb-paths-'));
  const outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim'), 'precious\n');
  const ws = join(root, 'ws');
  const snap = join(root, 'snap');
  for (const d of [ws, snap]) {
    mkdirSync(join(d, 'src'), { recursive: true });
    writeFileSync(join(d, 'src', 'a.js'), 'export const a = 1;\n');
    symlinkSync(outside, join(d, 'link'));
  }
  return { root, outside, ws, snap, victim: join(outside, 'victim') };
}

const task = (suite: Partial<TestSuite>, testPatch = '') =>
  ({
    task_id: 't',
    test_suites: [
      {
        name: 'js',
        language: 'javascript',
        command: 'true',
        format: 'junit-xml',
        test_files: [],
        ...suite,
      },
    ],
    test_patch: testPatch,
    ground_truth_patch: '',
  }) as unknown as ResolvedTask;

const infraCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof InfraError) return e.code;
    throw e;
  }
  return undefined;
};

describe('pathEscape: the text of a path', () => {
  it.each([
    ['/etc/passwd', 'is absolute'],
    ['../victim', 'leaves its root through ".."'],
    ['a/../../victim', 'leaves its root through ".."'],
    ['..', 'leaves its root through ".."'],
    ['.', 'names its root itself'],
    ['./', 'names its root itself'],
    ['a\0b', 'holds a NUL byte'],
  ])('%j %s', (p, why) => expect(pathEscape(p)).toBe(why));

  it.each(['test/', 'a/../b', 'reports/junit.xml', '..hidden/x', 'src/./x.js'])(
    '%j stays inside',
    (p) => expect(pathEscape(p)).toBeUndefined(),
  );
});

describe('diskEscape: symlinks on the way', () => {
  it('a live link to outside on the way is refused; the path itself is followed only when asked', () => {
    const { ws } = withOutsideLink();
    expect(diskEscape(ws, 'link/victim')).toBe(
      'goes through the symlink link, which points outside',
    );
    // Removing `link` removes the link, not what it points at; reading it would follow it.
    expect(diskEscape(ws, 'link')).toBeUndefined();
    expect(diskEscape(ws, 'link', true)).toMatch(/symlink link, which points outside/);
  });

  it('a dangling link is judged by where it points; a link inside the root is fine', () => {
    const { ws, root } = withOutsideLink();
    symlinkSync(join(root, 'not-yet'), join(ws, 'dangling'));
    symlinkSync('src', join(ws, 'inner'));
    expect(diskEscape(ws, 'dangling/x')).toMatch(/symlink dangling, which points outside/);
    expect(diskEscape(ws, 'inner/a.js', true)).toBeUndefined();
    expect(diskEscape(ws, 'missing/deeper/x')).toBeUndefined();
  });

  it("containedPath gives root/rel or the caller's error", () => {
    const { ws } = withOutsideLink();
    expect(containedPath(ws, 'src/a.js', (w) => new Error(w))).toBe(join(ws, 'src/a.js'));
    expect(() => containedPath(ws, 'link/victim', (w) => new Error(`no: ${w}`))).toThrow(
      /^no: goes through the symlink link/,
    );
  });
});

describe('the points of use refuse a repository symlink that leads out', () => {
  it('hardening does not remove a result_file reached through it (bad_result_file)', () => {
    const { ws, snap, victim } = withOutsideLink();
    const code = infraCode(() =>
      restoreInfrastructure(ws, snap, task({ result_file: 'link/victim' }), 0n),
    );
    expect(code).toBe('bad_result_file');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('restoring the tests does not remove a test path reached through it (bad_test_path)', async () => {
    const { ws, victim } = withOutsideLink();
    await expect(restoreTests(ws, 'HEAD', task({ test_files: ['link/victim'] }))).rejects.toThrow(
      /test path "link\/victim" goes through the symlink link, which points outside: it is not removed/,
    );
    expect(existsSync(victim)).toBe(true);
  });

  it('a test_patch header that leaves the workspace is refused before any removal', () => {
    const patch = 'diff --git a/../victim b/../victim\n--- a/../victim\n+++ b/../victim\n';
    expect(infraCode(() => protectedTestPaths(task({}, patch)))).toBe('bad_test_path');
  });

  it('a result file the suite turned into a link to outside is not read', async () => {
    const { ws, root } = withOutsideLink();
    const secret = join(root, 'secret.xml');
    writeFileSync(
      secret,
      '<testsuite><testcase classname="leak" name="read the secret"/></testsuite>\n',
    );
    execFileSync('git', ['init', '-q'], { cwd: ws });
    const suite = task({ command: `ln -s ${secret} r.xml`, result_file: 'r.xml' }).test_suites[0];
    const home = join(root, 'home');
    const r = await runSuite(ws, suite, 30, home);
    expect(r.status).toBe('no_report');
    expect(r.tests.map((t) => t.id)).not.toContainEqual(expect.stringMatching(/secret/));
    expect(r.noReport).toBe('the file was not written');
  });
});
