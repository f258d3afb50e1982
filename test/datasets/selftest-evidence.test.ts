// Issue 28: every active task of a shipped dataset has selftest evidence for its current content
// (<dataset>/selftest/<task_id>.json, from `nanobench selftest DATASET --mirror DIR
// --record-evidence` on a machine with the repositories): the real Nanocoder ran every derived
// behaviour on it in both modes. CI cannot reach the repositories, so it checks what the files
// say. A task whose selftest found a mismatch is listed below with what it turned out to be
// (docs/ARCHITECTURE.md, "What the first full selftest of nanobench-v1 found"); a new one fails.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSelftestEvidence, selftestEvidenceStatus } from '../../src/derived/evidence.js';
import { loadDataset } from '../../src/task/load.js';
import { SHIPPED_DATASETS_DIR, shippedDatasets } from '../../src/task/registry.js';

const KNOWN_MISMATCHES: Record<string, Record<string, string>> = {
  'nanobench-v1': {
    'pyparsing-652': "Nanocoder's --json report cut short (a write_file of a 6,000-line file)",
    'zod-5440': "zod's vitest type tests pass with a run-time break: partial_fix_only",
    'zod-6376': "zod's vitest type tests pass with a run-time break: incorrect_fix",
  },
};

describe.each(shippedDatasets())('shipped dataset %s', (name) => {
  const dir = join(SHIPPED_DATASETS_DIR, name);
  const active = loadDataset(dir).filter((t) => t.task.status.state === 'active');
  const status = active.map((t) => ({ id: t.task.task_id, status: selftestEvidenceStatus(t) }));

  it('every active task has complete selftest evidence for its current content', () => {
    const problems = status
      .filter((p) => p.status !== 'ok' && p.status !== 'mismatch')
      .map((p) => `${p.id}: ${p.status}`);
    expect(problems, 'run: nanobench selftest DATASET --mirror DIR --record-evidence').toEqual([]);
    for (const t of active)
      expect(readSelftestEvidence(dir, t.task.task_id)?.nanocoder_version).toMatch(/^\d+\.\d+\./);
  });

  it('the tasks with a mismatch are the known ones, each with what it turned out to be', () => {
    const mismatched = status.filter((p) => p.status === 'mismatch').map((p) => p.id);
    expect(mismatched).toEqual(Object.keys(KNOWN_MISMATCHES[name] ?? {}));
  });
});
