// Issue 18: release notes are the manifest diff; version order; an archived version is loaded
// only as it was released.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions, releaseNotes, releaseNotesMarkdown } from '../../src/task/archive.js';
import { loadDataset } from '../../src/task/load.js';
import { buildManifest, type Manifest } from '../../src/task/manifest.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';

const manifest = (over: Partial<Manifest>): Manifest => ({
  name: 'ds',
  version: '1.0.0',
  cutoff: null,
  digest: 'sha256:a',
  repos: {},
  tasks: [],
  retired: [],
  calibrating: [],
  saturated: [],
  ...over,
});
const task = (task_id: string, digest = `d-${task_id}`) => ({
  task_id,
  file: `tasks/${task_id}.json`,
  digest,
});

describe('release notes', () => {
  it('added, changed, retired with reasons, removed, saturated, still calibrating', () => {
    const prev = manifest({
      tasks: [task('a'), task('b'), task('c'), task('gone')],
      saturated: [{ task_id: 'c', pooled_rate: 0.95, reason: 'old news' }],
    });
    const next = manifest({
      version: '1.1.0',
      digest: 'sha256:b',
      tasks: [task('b', 'd-b2'), task('c'), task('d'), task('e')],
      retired: [
        { task_id: 'a', file: 'tasks/a.json', reason: 'flaky', retired_in_version: '1.1.0' },
      ],
      saturated: [
        { task_id: 'c', pooled_rate: 0.95, reason: 'old news' },
        { task_id: 'e', pooled_rate: 0.92, reason: 'the only CLI task' },
      ],
      calibrating: [task('f')],
    });
    const n = releaseNotes(prev, next);
    expect(n).toMatchObject({
      previous: { version: '1.0.0', digest: 'sha256:a' },
      added: ['d', 'e'],
      changed: ['b'],
      governance: [],
      retired: [{ task_id: 'a', reason: 'flaky' }],
      removed: ['gone'],
      saturated: [{ task_id: 'e', pooled_rate: 0.92, reason: 'the only CLI task' }],
      calibrating: ['f'],
    });
    const md = releaseNotesMarkdown(n, '2026-12-01');
    expect(md).toContain(
      '# ds 1.1.0\n\nReleased 2026-12-01. Dataset digest `sha256:b`; previous version 1.0.0 (`sha256:a`).',
    );
    expect(md).toContain('## Retired (1)\n\n- a: flaky');
    expect(md).toContain('## Removed without being retired (1)\n\n- gone');
    expect(md).toContain(
      '## Saturated, kept active (they no longer separate models) (1)\n\n- e (92%): the only CLI task',
    );
    expect(md).toContain('## Still calibrating, not part of this release (1)\n\n- f');
  });

  it('a release that changes nothing says so', () => {
    const m = manifest({ tasks: [task('a')] });
    expect(
      releaseNotesMarkdown(releaseNotes(m, { ...m, version: '1.0.1' }), '2026-12-01'),
    ).toContain('No task was added, changed, retired or marked saturated.');
  });

  it('versions order numerically', () => {
    expect(['1.10.0', '1.9.0', '0.2.0', '1.9.1'].sort(compareVersions)).toEqual([
      '0.2.0',
      '1.9.0',
      '1.9.1',
      '1.10.0',
    ]);
  });
});

describe('an archived version', () => {
  it('loads only with the tasks its manifest lists, at their digests', () => {
    const ds = tempDir('nb-arch-');
    const dir = join(ds, 'archive', '0.2.0');
    mkdirSync(dir, { recursive: true });
    cpSync(join(EXAMPLES, 'tasks'), join(dir, 'tasks'), { recursive: true });
    writeFileSync(
      join(dir, 'dataset.json'),
      JSON.stringify(buildManifest(EXAMPLES, { version: '0.2.0' })),
    );
    expect(loadDataset(dir)).toHaveLength(5);
    const extra = join(dir, 'tasks', 'zz.json');
    cpSync(join(dir, 'tasks', 'textkit-001.json'), extra);
    writeFileSync(
      extra,
      JSON.stringify({
        ...JSON.parse(JSON.stringify(loadDataset(EXAMPLES)[3].task)),
        task_id: 'zz',
      }),
    );
    rmSync(join(dir, 'tasks', 'invoicing-001.json'));
    expect(() => loadDataset(dir)).toThrow(
      /zz.json: task zz is not in the manifest of 0.2.0\n.*task invoicing-001 of 0.2.0 is missing from .*\nan archived version is never edited/,
    );
    // The same files outside archive/<version>/ are an ordinary dataset.
    const plain = join(ds, 'work');
    cpSync(dir, plain, { recursive: true });
    expect(loadDataset(plain)).toHaveLength(5);
  });
});
