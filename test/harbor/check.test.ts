// Issue #17: `nanobench task check` on broken Harbor tasks. Each variant of a valid example breaks
// one thing, and exactly the check that judges that thing fails.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_IDS, type CheckId, checkHarborTask, checkTargets } from '../../src/harbor/check.js';
import { loadHarborTask } from '../../src/task/harbor.js';
import { UserError } from '../../src/util/errors.js';
import { EXAMPLES } from '../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'nb-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of an example task with one thing broken. */
function broken(name: string, example: string, breakIt: (dir: string) => void): string {
  const dir = join(root, name);
  cpSync(join(EXAMPLES, 'harbor', example), dir, { recursive: true });
  breakIt(dir);
  return dir;
}

const failing = (dir: string) =>
  checkHarborTask(dir)
    .checks.filter((c) => !c.ok)
    .map((c) => c.check);

describe('task check: the examples are structurally valid', () => {
  it.each(['median', 'units', 'line-fit'])('%s', (name) => {
    const r = checkHarborTask(join(EXAMPLES, 'harbor', name));
    expect(r.checks.map((c) => c.check)).toEqual([...CHECK_IDS]);
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    expect(r.valid).toBe(true);
  });
});

const CASES: [string, CheckId, string, (dir: string) => void][] = [
  ['no task.toml', 'task.toml', 'median', (d) => rmSync(join(d, 'task.toml'))],
  [
    'task.toml not TOML',
    'task.toml',
    'median',
    (d) => writeFileSync(join(d, 'task.toml'), '[agent\ntimeout_sec = 1'),
  ],
  [
    'a negative timeout',
    'task.toml',
    'median',
    (d) => writeFileSync(join(d, 'task.toml'), '[agent]\ntimeout_sec = -5\n'),
  ],
  [
    'a timeout as a string',
    'task.toml',
    'median',
    (d) => writeFileSync(join(d, 'task.toml'), '[verifier]\ntimeout_sec = "60"\n'),
  ],
  ['no instruction.md', 'instruction', 'median', (d) => rmSync(join(d, 'instruction.md'))],
  [
    'an empty instruction.md',
    'instruction',
    'median',
    (d) => writeFileSync(join(d, 'instruction.md'), '  \n'),
  ],
  [
    'no Dockerfile, no docker_image',
    'environment',
    'median',
    (d) => rmSync(join(d, 'environment', 'Dockerfile')),
  ],
  [
    'a Dockerfile without FROM',
    'environment',
    'median',
    (d) => writeFileSync(join(d, 'environment', 'Dockerfile'), 'WORKDIR /app\n'),
  ],
  [
    'a Dockerfile without WORKDIR',
    'environment',
    'median',
    (d) =>
      writeFileSync(
        join(d, 'environment', 'Dockerfile'),
        'FROM debian:bookworm\nCOPY app/ /app/\n',
      ),
  ],
  [
    'WORKDIR /',
    'environment',
    'median',
    (d) => writeFileSync(join(d, 'environment', 'Dockerfile'), 'FROM debian:bookworm\nWORKDIR /\n'),
  ],
  ['no tests/test.sh', 'tests', 'median', (d) => rmSync(join(d, 'tests', 'test.sh'))],
  [
    'a verifier that writes no reward',
    'tests',
    'median',
    (d) =>
      writeFileSync(join(d, 'tests', 'test.sh'), '#!/bin/bash\npython3 /tests/check_median.py\n'),
  ],
  [
    'solution/ without solve.sh',
    'solution',
    'median',
    (d) => rmSync(join(d, 'solution', 'solve.sh')),
  ],
  ['judge/ without judge.json', 'judge', 'line-fit', (d) => rmSync(join(d, 'judge', 'judge.json'))],
  [
    'a budget of zero',
    'judge',
    'line-fit',
    (d) => writeFileSync(join(d, 'judge', 'judge.json'), '{"max_submissions": 0}'),
  ],
  ['judge/ without score.py', 'judge', 'line-fit', (d) => rmSync(join(d, 'judge', 'score.py'))],
  [
    'final cases without final.py',
    'judge',
    'line-fit',
    (d) => rmSync(join(d, 'judge', 'final.py')),
  ],
  [
    'grader cases without a reason',
    'judge',
    'line-fit',
    (d) =>
      writeFileSync(
        join(d, 'judge', 'grader_tests.json'),
        '{"cases": [{"submission": 1, "reward": 0}]}',
      ),
  ],
  [
    'the solution copied into the image',
    'leaks',
    'median',
    (d) => cpSync(join(d, 'solution', 'solve.sh'), join(d, 'environment', 'app', 'notes.sh')),
  ],
  [
    'a test copied into the image',
    'leaks',
    'median',
    (d) => cpSync(join(d, 'tests', 'check_median.py'), join(d, 'environment', 'app', 'check.py')),
  ],
  [
    "the grader's code copied into the image",
    'leaks',
    'line-fit',
    (d) => cpSync(join(d, 'judge', 'fit.py'), join(d, 'environment', 'app', 'fit.py')),
  ],
];

describe('task check: a broken task fails exactly its check', () => {
  it.each(CASES)('%s -> %s', (name, check, example, breakIt) => {
    const dir = broken(name.replace(/\W+/g, '-'), example, breakIt);
    expect(failing(dir)).toEqual([check]);
    const r = checkHarborTask(dir);
    expect(r.valid).toBe(false);
    expect(r.checks.find((c) => c.check === check)?.fix).toBeTruthy();
  });

  it('public data shared by the image and the judge is not a leak', () => {
    // line-fit's train.csv is in both on purpose; its held-out points are not in the image.
    expect(failing(join(EXAMPLES, 'harbor', 'line-fit'))).toEqual([]);
  });

  it('a directory of tasks is checked task by task; a task without task.toml is still one', () => {
    const dir = broken('no-toml-in-bench', 'median', (d) => rmSync(join(d, 'task.toml')));
    expect(checkTargets(join(EXAMPLES, 'harbor')).map((d) => d.split('/').pop())).toEqual([
      'line-fit',
      'median',
      'units',
    ]);
    expect(checkTargets(dir)).toEqual([dir]);
  });
});

// Issue 22 §3: a broken judge.json was met by every trial as internal/bug with a raw ZodError.
describe("a broken judge is refused when the task is loaded, with task check's message", () => {
  it.each([
    ['{"max_submissions": 0}', /field "max_submissions": Number must be greater than 0/],
    ['{"max_submissions": "3"}', /field "max_submissions": Expected number, received string/],
    [
      '{"max_submissions": 3, "budget": 1}',
      /the top level: Unrecognized key\(s\) in object: 'budget'/,
    ],
    ['{"max_submissions": 3,', /judge\/judge.json is not JSON/],
  ])('%s', (json, message) => {
    const dir = broken(`judge-${json.replace(/\W+/g, '-')}`, 'line-fit', (d) =>
      writeFileSync(join(d, 'judge', 'judge.json'), json),
    );
    const check = checkHarborTask(dir).checks.find((c) => c.check === 'judge')!;
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(message);
    expect(check.reason).not.toMatch(/^judge\/judge.json: \[/); // no raw ZodError dump
    let thrown: unknown;
    try {
      loadHarborTask(dir);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UserError);
    const line = (thrown as Error).message;
    expect(line).toContain(`${dir}: ${check.reason}; fix: ${check.fix}`);
    expect(line).toMatch(/\(nanobench task check .*\)$/);
    expect(line.split('\n')).toHaveLength(1);
  });

  it('judge/ without judge.json is refused too (it was silently run without its judge)', () => {
    const dir = broken('judge-none', 'line-fit', (d) => rmSync(join(d, 'judge', 'judge.json')));
    expect(() => loadHarborTask(dir)).toThrow(/judge\/ has no judge.json/);
  });
});
