// Issue 5: the Level-4 audit through the CLI (whitepaper §9.2). Reviewers get a blinded sample
// (failure output and diff only); their agreement with the rule engine is stored, and below 90%
// reports show hallucinated_api and wrong_abstraction_layer as implementation_error.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, nanobench, runJson, tempDir } from '../helpers/cli.js';

const dir = tempDir('nb-audit-');
const db = join(dir, 'r.sqlite');
const agent = `command:${join(AGENTS, 'hallucinated.sh')}`;
let runId: string;

const read = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

beforeAll(() => {
  const out = runJson([
    'run',
    'examples',
    '--agent',
    agent,
    '--task',
    'textkit-002,invoicing-002',
    '--runs',
    '1',
    '--db',
    db,
  ]);
  runId = out.run_id;
  expect(out.trials.map((t) => t.label)).toEqual(['hallucinated_api', 'hallucinated_api']);
});

describe('audit export', () => {
  it('writes a blinded sample: failure output and diff, nothing that names the run or the agent', () => {
    const out = join(dir, 'items.json');
    const r = nanobench(['audit', 'export', '--run', runId, '--db', db, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/keep it private/);
    const doc = read(out);
    expect(doc.items).toHaveLength(2);
    for (const item of doc.items) {
      expect(item.id).toMatch(/^[0-9a-f]{12}$/);
      expect(item.label).toBeNull();
      expect(item.diff).toMatch(/^diff --git/);
      expect(
        item.failure.map((f: { stdout: string; stderr: string }) => f.stdout + f.stderr).join(''),
      ).toMatch(/normalizeWidth is not defined|has no attribute 'amount_outstanding'/);
    }
    const text = readFileSync(out, 'utf8');
    for (const leak of [runId, 'hallucinated.sh', 'command:', dir, 'textkit-002', 'invoicing-002'])
      expect(text).not.toContain(leak);
    const key = read(join(dir, 'items.key.json'));
    expect(statSync(join(dir, 'items.key.json')).mode & 0o077).toBe(0);
    expect(key.run_id).toBe(runId);
    expect(Object.keys(key.items).sort()).toEqual(
      doc.items.map((i: { id: string }) => i.id).sort(),
    );
    expect(
      Object.values(key.items).map((e) => (e as { engine_label: string }).engine_label),
    ).toEqual(['hallucinated_api', 'hallucinated_api']);
  });

  it('the same seed draws the same sample', () => {
    const pick = (seed: string, n: string) => {
      const out = join(dir, `s-${seed}-${n}.json`);
      nanobench([
        'audit',
        'export',
        '--run',
        runId,
        '--db',
        db,
        '--out',
        out,
        '--sample',
        '1',
        '--seed',
        seed,
      ]);
      return Object.values(read(join(dir, `s-${seed}-${n}.key.json`)).items).map(
        (e) => (e as { trial_key: string }).trial_key,
      );
    };
    expect(pick('a', '1')).toEqual(pick('a', '2'));
    expect(pick('a', '1')).toHaveLength(1);
  });
});

describe('audit score', () => {
  function review(labels: string[], name: string): string {
    const doc = read(join(dir, 'items.json'));
    doc.items.forEach((item: { label: string }, i: number) => {
      item.label = labels[i];
    });
    doc.reviewer = 'reviewer-2';
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  }
  const report = () => nanobench(['report', runId, '--db', db]);

  it('full agreement keeps the Level-4 labels in reports', () => {
    const file = review(['hallucinated_api', 'hallucinated_api'], 'agree.json');
    const r = nanobench([
      'audit',
      'score',
      '--key',
      join(dir, 'items.key.json'),
      '--labels',
      file,
      '--db',
      db,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/by reviewer-2: agreement 2\/2 = 100\.0%/);
    expect(r.stdout).toMatch(/reports keep both Level-4 labels/);
    const md = report().stdout;
    expect(md).toMatch(/hallucinated_api/);
    expect(md).not.toMatch(/implementation_error/);
    // The body states the agreement and its sample size.
    expect(md).toMatch(
      /2 of 2 sampled trials agreed with the rules \(100\.0%\), at least the 90\.0% required/,
    );
  });

  it('below 90% both labels are reported as implementation_error; scores do not change', () => {
    const file = review(['hallucinated_api', 'neither'], 'disagree.json');
    const r = nanobench([
      'audit',
      'score',
      '--key',
      join(dir, 'items.key.json'),
      '--labels',
      file,
      '--db',
      db,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      items: 2,
      agreed: 1,
      agreement: 0.5,
      collapsed: true,
    });
    const md = report();
    const sentence =
      /1 of 2 sampled trials agreed with the rules \(50\.0%\), below the 90\.0% required/;
    expect(md.stderr).toMatch(sentence);
    expect(md.stdout).toMatch(sentence);
    expect(md.stdout).toMatch(/implementation_error/);
    // Only the audit sentence still names the two labels; no table shows them.
    expect(md.stdout).not.toMatch(/\| hallucinated_api|hallucinated_api ×/);
    // The PR comment follows the same audit (it showed the engine's labels before).
    const ci = nanobench(['ci', 'comment', '--run', runId, '--db', db, '--dry-run']);
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toMatch(/implementation_error/);
    expect(ci.stdout).not.toMatch(/\| (hallucinated_api|wrong_abstraction_layer) \|/);
    expect(ci.stdout).toMatch(sentence);
    const stored = runJson(['report', runId, '--db', db]) as unknown as {
      trials: { label: string; score: number }[];
    };
    expect(stored.trials.map((t) => t.score)).toEqual([0, 0]);
  });

  it('refuses a review with unlabelled items', () => {
    const file = review(['hallucinated_api', ''], 'partial.json');
    const r = nanobench([
      'audit',
      'score',
      '--key',
      join(dir, 'items.key.json'),
      '--labels',
      file,
      '--db',
      db,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/1 of 2 item\(s\) have no label yet/);
  });
});
