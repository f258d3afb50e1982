// Issue 22 §3, Harbor tasks through the CLI in containers: a judge grader that crashes, times out
// or returns NaN, None or a string is an infra error of the grader (stage "grader"), never
// `no_reward 0.00` for a valid submission; a reward.json whose "reward" is there but is not a
// number ("0.0", null, true) and a reward.txt "0x1" are verify/bad_reward, never another metric
// as the score; a broken judge.json is refused when the task is loaded, with task check's message.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, ROOT, type TrialJson } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';

const root = mkdtempSync('/var/tmp/nb-harbor-faults-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
type Trial = TrialJson & { error_stage: string | null; error_code: string | null };

/** A copy of an example Harbor task under `dir`, named `name`, with files replaced. */
function copy(dir: string, example: string, name: string, files: Record<string, string>) {
  const to = join(dir, name);
  cpSync(join(EXAMPLES, 'harbor', example), to, { recursive: true });
  rmSync(join(to, 'judge', '__pycache__'), { recursive: true, force: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(to, f), text);
  return to;
}

function run(dataset: string, agent: string, db: string) {
  const r = nanobench([
    'run',
    dataset,
    ...['--agent', agent, '--sandbox', 'podman', '--build-arg', `BASE_IMAGE=${testImage()}`],
    ...['--db', join(root, db), '--json'],
  ]);
  return { ...r, trials: (r.stdout ? JSON.parse(r.stdout).trials : []) as Trial[] };
}

const cause = (t: Trial) => `${t.error_stage}/${t.error_code}`;
const grader = (body: string) => `def grade(path):\n${body}\n`;

describe.skipIf(noPodman)(
  'a judge grader that cannot grade is an infra error of the grader',
  () => {
    const ds = join(root, 'graders');
    let r: ReturnType<typeof run>;
    beforeAll(() => {
      mkdirSync(ds, { recursive: true });
      copy(ds, 'line-fit', 'fit-crash', {
        'judge/score.py': grader('    raise RuntimeError("boom")'),
      });
      copy(ds, 'line-fit', 'fit-nan', {
        'judge/score.py': grader('    return {"reward": float("nan")}'),
      });
      copy(ds, 'line-fit', 'fit-none', { 'judge/score.py': grader('    return {"reward": None}') });
      copy(ds, 'line-fit', 'fit-string', {
        'judge/score.py': grader('    return {"reward": "1.0"}'),
      });
      copy(ds, 'line-fit', 'fit-slow', {
        'judge/score.py': `import time\n${grader('    time.sleep(30)\n    return {"reward": 1.0}')}`,
        'judge/judge.json': '{"max_submissions": 5, "grader_timeout_sec": 2}',
      });
      copy(ds, 'line-fit', 'fit-final-crash', { 'judge/final.py': grader('    return 1 / 0') });
      r = run(ds, `command:${join(ROOT, 'test/fixtures/judge/submit-fit.py')}`, 'graders.sqlite');
    }, 600_000);

    it('crashed, bad_reward (NaN, None, a string), timed_out, and final.py crashing', () => {
      expect(Object.fromEntries(r.trials.map((t) => [t.task_id, cause(t)]))).toEqual({
        'fit-crash': 'grader/crashed',
        'fit-nan': 'grader/bad_reward',
        'fit-none': 'grader/bad_reward',
        'fit-string': 'grader/bad_reward',
        'fit-slow': 'grader/timed_out',
        'fit-final-crash': 'grader/crashed',
      });
      for (const t of r.trials)
        expect(t).toMatchObject({ status: 'error', score: null, label: null });
      const byTask = Object.fromEntries(r.trials.map((t) => [t.task_id, t]));
      expect(byTask['fit-crash'].error).toMatch(
        /^grader: judge\/score.py failed on submission 1: the grader failed \(exit 1: RuntimeError: boom\)$/,
      );
      expect(byTask['fit-string'].error).toMatch(
        /grade\(\) returned \{'reward': '1.0'\}: its "reward" must be a finite number/,
      );
      expect(byTask['fit-final-crash'].error).toMatch(
        /^grader: judge\/final.py failed on submission 1: .*ZeroDivisionError/,
      );
      expect(r.code).toBe(1);
    });

    it('the reports list them by cause', () => {
      const md = nanobench(['report', '--db', join(root, 'graders.sqlite')]);
      expect(md.stdout).toMatch(/3× \*\*grader\/bad_reward\*\*/);
      expect(md.stdout).toMatch(/2× \*\*grader\/crashed\*\*/);
    });
  },
);

describe.skipIf(noPodman)(
  "a malformed reward is verify/bad_reward, never another metric's score",
  () => {
    it('"0.0", null and true in reward.json, "0x1" in reward.txt: the nop agent is never paid', () => {
      const ds = join(root, 'rewards');
      mkdirSync(ds, { recursive: true });
      const writes = (file: string, text: string) =>
        `#!/bin/bash\necho '${text}' > /logs/verifier/${file}\n`;
      copy(ds, 'median', 'reward-string', {
        'tests/test.sh': writes('reward.json', '{"reward": "0.0", "duration_sec": 12.5}'),
      });
      copy(ds, 'median', 'reward-null', {
        'tests/test.sh': writes('reward.json', '{"reward": null, "tests": 3}'),
      });
      copy(ds, 'median', 'reward-true', {
        'tests/test.sh': writes('reward.json', '{"reward": true}'),
      });
      copy(ds, 'median', 'reward-hex', { 'tests/test.sh': writes('reward.txt', '0x1') });
      const r = run(ds, 'nop', 'rewards.sqlite');
      expect(r.trials.map(cause)).toEqual(Array(4).fill('verify/bad_reward'));
      for (const t of r.trials) expect(t).toMatchObject({ status: 'error', score: null });
      const byTask = Object.fromEntries(r.trials.map((t) => [t.task_id, t]));
      expect(byTask['reward-string'].error).toMatch(
        /"reward" is "0.0" \(string\): it must be a finite number/,
      );
      expect(byTask['reward-hex'].error).toMatch(/reward.txt must hold one number, got "0x1"/);
      expect(r.code).toBe(1);
    }, 600_000);
  },
);

describe('a broken judge.json is refused when the task is loaded', () => {
  it('run and task check say the same, in one line, and no trial is stored as internal/bug', () => {
    const ds = join(root, 'broken-judge');
    mkdirSync(ds, { recursive: true });
    const task = copy(ds, 'line-fit', 'fit-broken', {
      'judge/judge.json': '{"max_submissions": "5"}',
    });
    const check = nanobench(['task', 'check', task]);
    expect(check.code).toBe(1);
    const reason = 'judge/judge.json: field "max_submissions": Expected number, received string';
    expect(check.stdout + check.stderr).toContain(reason);
    const r = nanobench([
      'run',
      ds,
      '--agent',
      'nop',
      '--sandbox',
      'podman',
      '--db',
      join(root, 'b.sqlite'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^nanobench: ${task}: ${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; fix: .*\\(nanobench task check ${task}\\)$`,
        ),
      ),
    ]);
  });
});
