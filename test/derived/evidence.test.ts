// Selftest evidence is tied to the task's content and says whether every case ran and matched.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEHAVIOURS } from '../../src/derived/behaviours.js';
import {
  newSelftestEvidence,
  selftestEvidenceStatus,
  writeSelftestEvidence,
} from '../../src/derived/evidence.js';
import type { SelftestCase } from '../../src/derived/selftest.js';
import { loadDataset } from '../../src/task/load.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';

const [example] = loadDataset(EXAMPLES);
const lt = { ...example, datasetDir: tempDir('nb-selftest-ev-') };
const id = lt.task.task_id;
const run = { run_id: 'r1', nanocoder_version: '1.30.0' };
const cases = (match: boolean | null = true): SelftestCase[] =>
  BEHAVIOURS.flatMap((behaviour) =>
    (['hinted', 'navigation'] as const).map((mode) => ({
      task: id,
      behaviour,
      mode,
      expected: 'pass',
      expected_score: 1,
      expected_flags: [],
      got: 'pass',
      match,
    })),
  );

describe('selftest evidence', () => {
  it('missing, then ok for a complete matching selftest of this content', () => {
    expect(selftestEvidenceStatus(lt)).toBe('missing');
    const e = newSelftestEvidence(lt, cases(), run);
    if (typeof e === 'string') throw new Error(e);
    const file = writeSelftestEvidence(lt.datasetDir, e);
    expect(file).toBe(join(lt.datasetDir, 'selftest', `${id}.json`));
    expect(e).toMatchObject({ task_digest: lt.digest, nanocoder_version: '1.30.0', ok: true });
    expect(selftestEvidenceStatus(lt)).toBe('ok');
  });

  it('a mismatch, other content, or cases left out say so', () => {
    const bad = newSelftestEvidence(
      lt,
      [...cases().slice(1), { ...cases()[0], match: false }],
      run,
    );
    if (typeof bad === 'string') throw new Error(bad);
    writeSelftestEvidence(lt.datasetDir, bad);
    expect(selftestEvidenceStatus(lt)).toBe('mismatch');
    writeSelftestEvidence(lt.datasetDir, { ...bad, ok: true, cases: bad.cases.slice(2) });
    expect(selftestEvidenceStatus(lt)).toBe('incomplete');
    writeSelftestEvidence(lt.datasetDir, { ...bad, task_digest: 'x', content_digest: 'y' });
    expect(selftestEvidenceStatus(lt)).toBe('stale');
    expect(newSelftestEvidence(lt, cases().slice(3), run)).toMatch(/only 9 of 12 cases ran/);
  });
});
