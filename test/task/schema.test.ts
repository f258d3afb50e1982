import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedSchemas } from '../../src/report/json-schemas.js';
import { loadTaskFile, parseTask } from '../../src/task/load.js';
import { UserError } from '../../src/util/errors.js';

const minimal = {
  schema_version: 1,
  task_id: 'demo-001',
  repo: 'acme/widgets',
  repo_url: 'https://example.invalid/acme/widgets',
  base_commit: 'a'.repeat(40),
  languages: ['javascript'],
  domain: 'utilities',
  complexity_tier: 1,
  task_type: 'bug_fix',
  reasoning_category: 'local_logic',
  token_estimate: 1000,
  problem_statement: 'Widgets break.',
  required_files: ['src/w.js'],
  ground_truth_patch: 'diff --git a/src/w.js b/src/w.js\n',
  test_patch: '',
  test_command: 'node --test',
  test_suites: [
    {
      name: 'js',
      language: 'javascript',
      command: 'node --test --test-reporter=tap',
      format: 'node-tap',
    },
  ],
  fail_to_pass: ['js::w > works'],
  contributor: 'someone',
  merged_at: '2026-02-01T00:00:00Z',
};

describe('task schema v1', () => {
  it('the checked-in schemas/task.schema.json matches the code (regenerate: npm run schemas)', () => {
    const onDisk = JSON.parse(readFileSync('schemas/task.schema.json', 'utf8'));
    expect(onDisk).toEqual(generatedSchemas()['task.schema.json']);
  });

  it('fills defaults', () => {
    const t = parseTask(minimal, 'x.json');
    expect(t.status).toEqual({ state: 'active' });
    expect(t.timeouts).toEqual({ agent_sec: 900, verifier_sec: 300 });
    expect(t.pass_to_pass).toEqual([]);
  });

  it('names the file, the field and what was expected', () => {
    const bad = { ...minimal, base_commit: 'abc', complexity_tier: 7 };
    expect(() => parseTask(bad, '/d/t.json')).toThrow(
      /\/d\/t.json: field "base_commit": a full 40-character/,
    );
    expect(() => parseTask(bad, '/d/t.json')).toThrow(/field "complexity_tier"/);
  });

  it('rejects unknown fields by name', () => {
    expect(() => parseTask({ ...minimal, golden: 'x' }, 't.json')).toThrow(
      /unknown field\(s\) "golden"/,
    );
  });

  it('rejects test ids without a known suite prefix', () => {
    expect(() => parseTask({ ...minimal, fail_to_pass: ['py::x'] }, 't.json')).toThrow(
      /field "fail_to_pass.0": test id must start with a suite name/,
    );
  });

  it('a retired task needs a reason', () => {
    expect(() => parseTask({ ...minimal, status: { state: 'retired' } }, 't.json')).toThrow(
      /field "status.reason"/,
    );
  });

  it('a calibrating task carries no activation or saturation yet', () => {
    expect(parseTask({ ...minimal, status: { state: 'calibrating' } }, 't.json').status).toEqual({
      state: 'calibrating',
    });
    const activated = {
      at: '2026-03-01T00:00:00Z',
      reason: 'approved',
      content_digest: `sha256:${'a'.repeat(64)}`,
      configurations: ['a', 'b', 'c'],
      observations: 9,
    };
    expect(() =>
      parseTask({ ...minimal, status: { state: 'calibrating', activated } }, 't.json'),
    ).toThrow(/field "status.activated": a calibrating task has no "activated" yet/);
    expect(
      parseTask({ ...minimal, status: { state: 'active', activated } }, 't.json').status,
    ).toMatchObject({ activated });
  });

  it('saturation kept active needs its reason', () => {
    const saturated = {
      pooled_rate: 0.95,
      passed: 19,
      observations: 20,
      marked_at: '2026-03-01T00:00:00Z',
    };
    expect(() =>
      parseTask({ ...minimal, status: { state: 'active', saturated } }, 't.json'),
    ).toThrow(/field "status.saturated.reason": missing/);
  });

  it('criteria: unique ids, pass_to_pass reserved, a test in one criterion only', () => {
    const c = (id: string, tests: string[]) => ({ id, description: 'd', tests });
    expect(
      parseTask({ ...minimal, criteria: [c('works', ['js::w > works'])] }, 't.json').criteria,
    ).toEqual([c('works', ['js::w > works'])]);
    expect(() =>
      parseTask({ ...minimal, criteria: [c('pass_to_pass', ['js::w > works'])] }, 't.json'),
    ).toThrow(/field "criteria.0.id": "pass_to_pass" is the criterion every task has/);
    expect(() =>
      parseTask({ ...minimal, criteria: [c('a', ['js::w > works']), c('a', ['js::x'])] }, 't.json'),
    ).toThrow(/field "criteria.1.id": criterion "a" is declared twice/);
    expect(() =>
      parseTask(
        { ...minimal, criteria: [c('a', ['js::w > works']), c('b', ['js::w > works'])] },
        't.json',
      ),
    ).toThrow(/field "criteria.1.tests.0": "js::w > works" is already in criterion "a"/);
  });

  it('invalid JSON is a UserError naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-'));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect(() => loadTaskFile(join(dir, 'bad.json'))).toThrow(UserError);
    expect(() => loadTaskFile(join(dir, 'bad.json'))).toThrow(/bad.json: not valid JSON/);
  });
});
