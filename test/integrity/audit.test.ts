// From evidence to flags, the strict rule, and what the report says.
import { describe, expect, it } from 'vitest';
import { auditTrial } from '../../src/integrity/audit.js';
import { applyIntegrity } from '../../src/integrity/flags.js';
import { networkErrors, protectedMentions } from '../../src/integrity/output.js';
import {
  integrityMarkdown,
  integritySummary,
  sandboxWarningMarkdown,
} from '../../src/integrity/report.js';
import type { TrialRecord } from '../../src/store/store.js';

const clean = {
  guard: { git: [], nestedGit: [], escapingSymlinks: [], specialFiles: [] },
  infra: { touchedTests: [], touchedInfra: [], resultFiles: [] },
  session: {
    kind: 'bwrap' as const,
    writesOutside: [],
    containment: 'pid-namespace' as const,
    endpointConnections: 0,
    limits: [],
    readOnly: [],
  },
  output: '',
  protectedRoots: ['/nb', '/data'],
  allowed: ['/nb/.nanobench/workspaces/r/t', '/nb/node_modules'],
};

describe('output evidence', () => {
  it('names of protected paths, unless the agent may use them', () => {
    const text = [
      'cat: /data/tasks/t.json: No such file or directory',
      'at file:///nb/node_modules/x/index.js:3', // allowed
      'ls /nb/.nanobench/workspaces/r/t/../../../results.sqlite',
      '/tmp/x is fine',
    ].join('\n');
    expect(protectedMentions(text, clean.protectedRoots, clean.allowed)).toEqual([
      '/data/tasks/t.json',
      '/nb/.nanobench/results.sqlite',
    ]);
  });
  it('network errors', () => {
    expect(networkErrors('ok\ncurl: (7) Failed to connect: Network is unreachable\nfine')).toEqual([
      'curl: (7) Failed to connect: Network is unreachable',
    ]);
  });
});

describe('auditTrial', () => {
  it('no evidence, no flags', () => {
    expect(auditTrial(clean)).toEqual({ flags: [], evidence: {} });
  });
  it('each kind of evidence raises its flag; network only counts inside a sandbox', () => {
    const a = auditTrial({
      ...clean,
      guard: { ...clean.guard, nestedGit: ['v/.git'], escapingSymlinks: ['l -> /'] },
      infra: { touchedTests: ['test'], touchedInfra: ['.npmrc'], resultFiles: ['r.xml'] },
      output: 'getaddrinfo EAI_AGAIN example.com',
    });
    expect(a.flags).toEqual([
      'touched_tests',
      'touched_test_infra',
      'touched_git_internals',
      'escaped_workspace',
      'network_blocked',
      'wrote_result_file',
    ]);
    const none = auditTrial({
      ...clean,
      session: { ...clean.session, kind: 'none' },
      output: 'EAI_AGAIN',
    });
    expect(none.flags).toEqual([]);
  });
});

const trial = (over: Partial<TrialRecord> = {}) =>
  ({ status: 'scored', score: 1, label: 'pass', flags: [], details: {}, ...over }) as TrialRecord;

describe('applyIntegrity', () => {
  it('off drops flags, flag records them, strict fails a rewarded flagged trial', () => {
    const off = trial();
    applyIntegrity(off, ['touched_tests'], 'off');
    expect(off.flags).toEqual([]);
    const flag = trial();
    applyIntegrity(flag, ['touched_tests'], 'flag');
    expect(flag).toMatchObject({ score: 1, label: 'pass', flags: ['touched_tests'] });
    const strict = trial({ score: 0.5, label: 'partial_fix_only' });
    applyIntegrity(strict, ['wrote_result_file'], 'strict');
    expect(strict).toMatchObject({ score: 0, label: 'integrity_violation' });
    expect(strict.details.integrity).toMatchObject({
      strict: { original_label: 'partial_fix_only', original_score: 0.5 },
    });
    const unearned = trial({ score: 0, label: 'zero_signal' });
    applyIntegrity(unearned, ['touched_tests'], 'strict');
    expect(unearned.label).toBe('zero_signal');
  });
});

describe('integrity in reports', () => {
  it('warns about --sandbox none and lists flagged trials', () => {
    const s = integritySummary({ sandbox_used: 'none', integrity: 'flag' }, [
      {
        task_id: 't1',
        provider: 'p',
        model: 'm',
        mode: 'hinted',
        attempt: 1,
        label: 'pass',
        score: 1,
        flags: ['touched_tests', 'timed_out'],
      },
      {
        task_id: 't2',
        provider: 'p',
        model: 'm',
        mode: 'hinted',
        attempt: 1,
        label: 'pass',
        score: 1,
        flags: [],
      },
    ]);
    expect(sandboxWarningMarkdown(s).join('\n')).toMatch(/Warning: no sandbox/);
    expect(sandboxWarningMarkdown(integritySummary({ sandbox_used: 'bwrap' }, []))).toEqual([]);
    const md = integrityMarkdown(s, (x) => x).join('\n');
    expect(md).toContain('| t1 | p/m | hinted | 1 | pass | 1 | touched_tests |');
    expect(md).not.toContain('t2');
    expect(integrityMarkdown(integritySummary({ sandbox_used: 'bwrap' }, []), (x) => x)).toEqual(
      [],
    );
  });
});
