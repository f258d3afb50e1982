// Issue 18: the release archive, round trip. A copy of the examples is released as 0.2.0; a task
// is retired and another kept active although saturated (on stored runs); releasing 0.3.0 is
// refused until the saturated task has its reason, then writes notes from the manifest diff,
// moves the retired task into the archive with a deprecation record, and leaves 0.2.0 runnable
// exactly as released (digests verified: an edited archive refuses to run). compare refuses runs
// over different versions unless asked.
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { contentDigest } from '../../src/task/digest.js';
import { loadDataset } from '../../src/task/load.js';
import { EXAMPLES, nanobench, runJson, tempDir } from '../helpers/cli.js';
import { run as runRecord, trial } from '../report/make-trials.js';

const root = tempDir('nb-archive-');
const ds = join(root, 'examples');
const db = join(root, 'results.sqlite');
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

for (const part of ['tasks', 'contracts', 'mirror', 'dataset.json'])
  cpSync(join(EXAMPLES, part), join(ds, part), { recursive: true });

/** Stored calibration runs in which invoicing-001 is solved by three models, 9 of 9. */
function saturatingRuns(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'nb-sat-')), 'cal.sqlite');
  const lt = loadDataset(ds).find((t) => t.task.task_id === 'invoicing-001')!;
  const store = Store.open(file);
  store.createRun(
    runRecord(
      {
        agent_info: { nanocoder_version: '1.30.0' },
        task_digests: { 'invoicing-001': lt.digest },
        task_meta: { 'invoicing-001': { tier: 2, content_digest: contentDigest(lt.task) } },
      },
      'cal',
    ),
  );
  for (const model of ['m1', 'm2', 'm3'])
    for (let attempt = 1; attempt <= 3; attempt++)
      store.insertTrial(
        trial({
          run_id: 'cal',
          trial_key: `${model}-${attempt}`,
          task_id: 'invoicing-001',
          provider: 'openai',
          model,
          attempt,
        }),
      );
  store.close();
  return file;
}

const release = (version: string, extra: string[] = []) =>
  nanobench(['dataset', 'release', ds, '--version', version, '--date', '2026-12-01', ...extra]);
const oracle = (target: string, task: string) =>
  runJson(['run', target, '--agent', 'oracle', '--task', task, '--runs', '1', '--db', db]);

describe('the release archive', () => {
  let cal = '';

  it('a first release freezes the version in archive/0.2.0', () => {
    const r = release('0.2.0');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^# nanobench-examples 0\.2\.0\n\nReleased 2026-12-01\. Dataset digest `sha256:[0-9a-f]{64}`; first release\./,
    );
    const a = join(ds, 'archive', '0.2.0');
    expect(readJson(join(a, 'dataset.json')).tasks).toHaveLength(5);
    expect(existsSync(join(a, 'tasks', 'textkit-001.json'))).toBe(true);
    expect(
      existsSync(join(a, 'contracts', 'textkit-001', 'reject-no-clamp', 'candidate.patch')),
    ).toBe(true);
    expect(readFileSync(join(a, 'RELEASE.md'), 'utf8')).toBe(r.stdout);
    expect(release('0.2.0').stderr).toMatch(
      /0\.2\.0 is released, and a released version is never rewritten/,
    );
  });

  it('a saturated task without a recorded reason refuses the next release', () => {
    expect(
      nanobench([
        'task',
        'retire',
        'textkit-001',
        '--reason',
        'flaky after the Node 22 upgrade',
        '--version',
        '0.3.0',
        '--dataset',
        ds,
      ]).code,
    ).toBe(0);
    cal = saturatingRuns();
    const refused = release('0.3.0', ['--db', cal]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /0\.3\.0 cannot be released:\n {2}invoicing-001 is saturated \(pooled solve rate 100% \(9\/9\) over 3 configurations\) and active without a recorded reason: keep it with nanobench task keep-saturated invoicing-001 --dataset .* --reason/,
    );
    expect(existsSync(join(ds, 'archive', '0.3.0'))).toBe(false);
    const keep = nanobench([
      'task',
      'keep-saturated',
      'invoicing-001',
      '--dataset',
      ds,
      '--db',
      cal,
      '--reason',
      'the only tax-rounding task',
    ]);
    expect(keep.code, keep.stderr).toBe(0);
    expect(readJson(join(ds, 'tasks', 'invoicing-001.json')).status.saturated).toMatchObject({
      pooled_rate: 1,
      passed: 9,
      observations: 9,
      reason: 'the only tax-rounding task',
    });
  });

  it('releasing 0.3.0: notes from the manifest diff, the retired task archived with its record', () => {
    const r = release('0.3.0', ['--db', cal]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('; previous version 0.2.0 (`sha256:');
    expect(r.stdout).toContain('## Retired (1)\n\n- textkit-001: flaky after the Node 22 upgrade');
    expect(r.stdout).toContain(
      '## Saturated, kept active (they no longer separate models) (1)\n\n- invoicing-001 (100%): the only tax-rounding task',
    );
    // Marking it saturated changed its status, not its content.
    expect(r.stdout).toContain(
      '## Status or disputes changed (content unchanged) (1)\n\n- invoicing-001',
    );
    expect(r.stdout).not.toContain('## Changed');
    expect(r.stderr).toMatch(
      /released nanobench-examples 0\.3\.0 \(4 tasks, .*retired and archived: textkit-001; run it as it was released with: nanobench run .*@0\.3\.0/,
    );

    expect(existsSync(join(ds, 'tasks', 'textkit-001.json'))).toBe(false);
    expect(existsSync(join(ds, 'contracts', 'textkit-001'))).toBe(false);
    const retired = join(ds, 'archive', '0.3.0', 'retired');
    expect(readJson(join(retired, 'tasks', 'textkit-001.json')).status.state).toBe('retired');
    expect(
      existsSync(join(retired, 'contracts', 'textkit-001', 'alt-room-variable', 'case.json')),
    ).toBe(true);
    expect(readJson(join(ds, 'archive', 'deprecations.json'))).toEqual({
      deprecations: [
        {
          task_id: 'textkit-001',
          deprecated_in: '0.3.0',
          reason: 'flaky after the Node 22 upgrade',
          last_released_in: '0.2.0',
          archived: 'archive/0.3.0/retired/tasks/textkit-001.json',
        },
      ],
    });
    expect(nanobench(['dataset', 'manifest', ds, '--check']).code).toBe(0);
  });

  it('an archived version runs exactly as released, the retired task included', () => {
    const old = oracle(`${ds}@0.2.0`, 'textkit-001');
    expect(old.trials[0]).toMatchObject({ task_id: 'textkit-001', status: 'scored', score: 1 });
    const now = nanobench(['run', ds, '--agent', 'oracle', '--task', 'textkit-001', '--db', db]);
    expect(now.code).toBe(2);
    expect(now.stderr).toMatch(/--task: no task named textkit-001/);
    const missing = nanobench(['run', `${ds}@0.1.0`, '--agent', 'oracle', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /has no released version 0\.1\.0 in archive\/ \(released: 0\.2\.0, 0\.3\.0\)/,
    );
  });

  it('its contract cases still run from the archive', () => {
    const r = nanobench([
      'contracts',
      `${ds}@0.2.0`,
      '--task',
      'textkit-001',
      '--cache-dir',
      join(root, 'cache'),
    ]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('1 of 1 task(s) hold their contracts');
  });

  it('an edited archive refuses to run, naming the file and the digests', () => {
    const file = join(ds, 'archive', '0.2.0', 'tasks', 'textkit-002.json');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(original), domain: 'typography' }));
    try {
      const r = nanobench(['run', `${ds}@0.2.0`, '--agent', 'oracle', '--db', db]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /textkit-002.json: task textkit-002 differs from the one released in 0\.2\.0 \(digest sha256:\w+, released sha256:\w+\)\nan archived version is never edited/,
      );
    } finally {
      writeFileSync(file, original);
    }
  });

  it('compare refuses runs over different dataset versions unless asked, and then says so', () => {
    const a = oracle(`${ds}@0.2.0`, 'invoicing-001').run_id;
    const b = oracle(ds, 'invoicing-001').run_id;
    const refused = nanobench(['compare', a, b, '--db', db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /the runs are over different dataset versions: base nanobench-examples 0\.2\.0, candidate nanobench-examples 0\.3\.0: .*pass --across-versions/,
    );
    const r = nanobench(['compare', a, b, '--db', db, '--across-versions', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).warnings).toContainEqual(
      expect.stringMatching(
        /^the runs are over different dataset versions: base nanobench-examples 0\.2\.0, candidate nanobench-examples 0\.3\.0; compared on the tasks they share/,
      ),
    );
    // Two runs of one version compare as before.
    const c = oracle(`${ds}@0.2.0`, 'invoicing-001').run_id;
    expect(nanobench(['compare', a, c, '--db', db]).code).toBe(0);
  });
});
