// Issue 22 §3: a broken task is never the agent's failure. fail_to_pass ids that the suite never
// reports (one of four: the oracle scored partial 0.50; all of them: incorrect_fix 0.00) are the
// task's fault when its golden patch leaves them unreported too: task/targets_missing, an infra
// error listed by cause in the markdown and HTML reports. An agent cannot use it to void a trial:
// a change that makes the runner die before it reports is graded as the failure it is.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, type TrialJson, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';

const root = tempDir('nb-task-faults-');
const ds = join(root, 'ds');
type Trial = TrialJson & { error_stage: string | null; error_code: string | null };

function variant(id: string, suffix: string, edit: (t: Record<string, unknown>) => void) {
  const t = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', `${id}.json`), 'utf8'));
  t.task_id = `${id}-${suffix}`;
  edit(t);
  writeFileSync(join(ds, 'tasks', `${t.task_id}.json`), JSON.stringify(t, null, 2));
}

beforeAll(() => {
  mkdirSync(join(ds, 'tasks'), { recursive: true });
  // One of four fail_to_pass ids names a test the suite does not have.
  variant('textkit-001', 'stale', (t) => {
    t.fail_to_pass = [...(t.fail_to_pass as string[]), 'js::truncate > a test that was renamed'];
  });
  // Every fail_to_pass id does.
  variant('textkit-001', 'gone', (t) => {
    t.fail_to_pass = (t.fail_to_pass as string[]).map((id) => `${id} (renamed)`);
  });
});

function run(agent: string, db: string, task?: string) {
  const r = nanobench([
    'run',
    ...(task ? [join(EXAMPLES, 'tasks', `${task}.json`)] : [ds]),
    '--mirror',
    join(EXAMPLES, 'mirror'),
    '--agent',
    agent,
    '--sandbox',
    'none',
    '--db',
    join(root, db),
    '--json',
  ]);
  return { ...r, trials: (r.stdout ? JSON.parse(r.stdout).trials : []) as Trial[] };
}

describe('targets the suite never reports', () => {
  it('the oracle: task/targets_missing on one of four and on all, never 0.5 or 0.0', () => {
    const r = run('oracle', 'oracle.sqlite');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing was scored \(task\/targets_missing ×2\)/);
    const byTask = Object.fromEntries(r.trials.map((t) => [t.task_id, t]));
    for (const t of r.trials)
      expect(t).toMatchObject({
        status: 'error',
        score: null,
        label: null,
        error_stage: 'task',
        error_code: 'targets_missing',
      });
    expect(byTask['textkit-001-stale'].error).toMatch(
      /^task: task textkit-001-stale: 1 of its 33 fail_to_pass \/ pass_to_pass tests never reported, with the golden patch \(js::truncate > a test that was renamed\); its lists name tests its suites do not run: re-record them with nanobench validate --write$/,
    );
    expect(byTask['textkit-001-gone'].error).toMatch(/: 3 of its 32 fail_to_pass/);
  });

  it('the markdown and HTML reports list them by cause, beside the rates', () => {
    const md = nanobench(['report', '--db', join(root, 'oracle.sqlite')]);
    expect(md.stdout).toMatch(/## Infra errors \(excluded from every rate\)/);
    expect(md.stdout).toMatch(/- 2× \*\*task\/targets_missing\*\*: `task: task textkit-001-/);
    const html = nanobench(['report', '--db', join(root, 'oracle.sqlite'), '--format', 'html']);
    expect(html.stdout).toContain('task/targets_missing');
  });

  it("any other agent: the task's golden control decides, and it is the task's fault here too", () => {
    const r = run('nop', 'nop.sqlite');
    expect(r.trials.map((t) => `${t.error_stage}/${t.error_code}`)).toEqual([
      'task/targets_missing',
      'task/targets_missing',
    ]);
    expect(r.trials[0].error).toMatch(/with the golden patch too/);
  });
});

describe('an agent cannot void its trial by breaking the runner', () => {
  it('a change that kills the suite before it reports: graded, since the golden patch reports', () => {
    // Appended to the module under test: the unittest process exits as the tests import it.
    const agent = `command:printf 'import os\\nos._exit(0)\\n' >> invoicing/invoice.py`;
    const r = run(agent, 'exit.sqlite', 'invoicing-001');
    expect(r.code, r.stderr).toBe(0);
    const [t] = r.trials;
    expect(t).toMatchObject({
      status: 'scored',
      score: 0,
      files_changed: ['invoicing/invoice.py'],
    });
    expect(t.label).not.toBe('pass');
    expect(t.tests.passed).toBe(0);
    // The suite wrote no report; the task's golden control did report: the agent's doing.
    const [row] = storedTrialRows<{ details: string }>(join(root, 'exit.sqlite'), ['details']);
    const d = JSON.parse(row.details);
    expect(d.unreported).toEqual({ noReport: ['py'], missing: [] });
    expect(d.golden_control.unreported).toEqual({ noReport: [], missing: [] });
  });
});
