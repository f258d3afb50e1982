// Issue 25: the layering of src/ (scripts/layers.mjs: no import cycle, nothing imported from a
// lower layer up to a higher one but the allow-listed type-only imports) and the length of the
// functions in src/cli/ and src/run/ (scripts/function-lengths.mjs) are checked in the unit tier
// too, not only by `npm run lint`. The fixture tree shows the layering check failing.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const script = (name: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', name), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('the shape of src/', () => {
  it('has no import cycle and no upward import outside the allow-list', () => {
    const r = script('layers.mjs');
    expect(r.stderr.split('\n').filter((l) => !l.startsWith('layers: pending'))).toEqual([
      expect.stringMatching(/^layers: \d+ modules, \d+ imports/),
      '',
    ]);
    expect(r.status).toBe(0);
  });

  it('names an upward import, runtime or type-only, and a cycle, and fails', () => {
    const r = script('layers.mjs', '--src', join(ROOT, 'test/fixtures/layers/src'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'layers: upward import: src/util/a.ts -> src/task/load.ts (util up to task, at runtime)',
    );
    expect(r.stderr).toContain(
      'layers: upward import: src/task/load.ts -> src/workspace/ws.ts (task up to workspace, type-only)',
    );
    expect(r.stderr).toContain(
      'layers: import cycle (2 modules): src/task/b.ts -> src/task/load.ts -> src/task/b.ts',
    );
    expect(r.stderr).not.toContain('src/cli/main.ts');
  });

  it('has no function over 100 lines in src/cli/ or src/run/', () => {
    const r = script('function-lengths.mjs');
    expect(r.stderr).toMatch(/^function-lengths: nothing over 100 lines/);
    expect(r.status).toBe(0);
  });
});
