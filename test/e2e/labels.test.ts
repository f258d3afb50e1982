// Issue #2: scripted command agents drive every label of the taxonomy through the CLI.
// The scripts and what they do are described in test/fixtures/agents/README.md.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, EXAMPLES, runJson, type TrialJson, tempDir } from '../helpers/cli.js';

const db = `${tempDir()}/r.sqlite`;

function trials(script: string, task: string): Record<string, TrialJson> {
  const out = runJson([
    'run',
    'examples',
    '--agent',
    `command:${join(AGENTS, script)}`,
    '--task',
    task,
    '--mode',
    'both',
    '--runs',
    '1',
    '--db',
    db,
  ]);
  return Object.fromEntries(out.trials.map((t) => [t.mode, t]));
}

describe('labels from scripted command agents', () => {
  it('an alternative correct fix passes', () => {
    const t = trials('pass.sh', 'textkit-001');
    expect(t.hinted).toMatchObject({ label: 'pass', score: 1 });
    expect(t.navigation).toMatchObject({ label: 'pass', score: 1 });
  });

  it('half the target tests: partial_fix_only, 0.5, level 1+2', () => {
    const t = trials('partial.sh', 'textkit-002');
    expect(t.hinted).toMatchObject({
      label: 'partial_fix_only',
      score: 0.5,
      confidence_level: '1+2',
    });
    expect(t.navigation).toMatchObject({ label: 'partial_fix_only', score: 0.5 });
  });

  // Scoring rules 3 (whitepaper §9.1 rule 2): in navigation mode a change that misses every
  // required file is insufficient_context_read; a command agent's reads are unknown, not zero.
  it('editing only other files: zero_signal hinted, insufficient_context_read navigation', () => {
    const t = trials('wrong-files.sh', 'invoicing-001');
    expect(t.hinted).toMatchObject({
      label: 'zero_signal',
      score: 0,
      files_changed: ['README.md'],
    });
    expect(t.navigation).toMatchObject({
      label: 'insufficient_context_read',
      score: 0,
      confidence_level: '1',
    });
    expect(t.navigation.explanation).toMatch(/^files read unknown/);
  });

  it('calling an API that exists nowhere: hallucinated_api in JS and Python', () => {
    for (const task of ['textkit-002', 'invoicing-002']) {
      const t = trials('hallucinated.sh', task);
      expect(t.hinted, task).toMatchObject({
        label: 'hallucinated_api',
        score: 0,
        confidence_level: '4',
      });
      expect(t.navigation, task).toMatchObject({ label: 'hallucinated_api', score: 0.1 });
    }
  });

  it('a wrong signature: wrong_abstraction_layer', () => {
    const t = trials('wrong-layer.sh', 'invoicing-002');
    expect(t.hinted).toMatchObject({
      label: 'wrong_abstraction_layer',
      score: 0,
      confidence_level: '4',
    });
  });

  it('fixing only the backend of a polyglot task: missing_cross_language_change in navigation mode only', () => {
    const t = trials('backend-only.sh', 'shopfront-001');
    expect(t.navigation).toMatchObject({
      label: 'missing_cross_language_change',
      score: 0.1,
      confidence_level: '1',
    });
    expect(t.hinted).toMatchObject({ label: 'incorrect_fix', score: 0 });
  });

  it('a wrong fix in a required file: incorrect_fix; 0.1 pathfinding credit in navigation mode only', () => {
    const t = trials('incorrect.sh', 'invoicing-001');
    expect(t.hinted).toMatchObject({ label: 'incorrect_fix', score: 0 });
    expect(t.navigation).toMatchObject({ label: 'incorrect_fix', score: 0.1 });
    expect(t.navigation.flags).toContain('pathfinding_credit');
  });

  it('editing the tests earns nothing: they are restored before grading', () => {
    const t = trials('cheat-edit-tests.sh', 'textkit-001');
    expect(t.hinted.score).toBe(0);
    expect(t.navigation.score).toBe(0);
    expect(t.hinted.tests.failed).toBe(3);
  });

  it('an agent that crashes is graded on what it left, not an error', () => {
    const t = trials('crash.sh', 'textkit-001');
    expect(t.hinted).toMatchObject({ status: 'scored', exit_kind: 'error', score: 0 });
  });

  it('an infra error is counted and shown but excluded from the score', () => {
    const dir = tempDir();
    cpSync(join(EXAMPLES, 'tasks', 'textkit-001.json'), join(dir, 'textkit-001.json'));
    const broken = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', 'textkit-001.json'), 'utf8'));
    broken.task_id = 'textkit-001-broken';
    broken.test_patch =
      'diff --git a/test/x.js b/test/x.js\n--- a/test/x.js\n+++ b/test/x.js\n@@ -1 +1 @@\n-nope\n+still nope\n';
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    const out = runJson([
      'run',
      dir,
      '--agent',
      'oracle',
      '--mirror',
      join(EXAMPLES, 'mirror'),
      '--db',
      db,
    ]);
    const bad = out.trials.find((t) => t.task_id === 'textkit-001-broken')!;
    expect(bad).toMatchObject({ status: 'error', score: null, label: null });
    expect(bad.error).toMatch(/test_patch does not apply/);
    expect(out.summary).toMatchObject({ trials: 2, scored: 1, errors: 1, mean_score: 1 });
  });
});
