// Issue #8: job ids, job payloads and shipped artifacts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packArtifacts, unpackArtifacts } from '../../src/queue/artifacts.js';
import { isRedacted, redactUrl } from '../../src/queue/connection.js';
import { jobData, jobId } from '../../src/queue/protocol.js';
import type { RunConfig } from '../../src/run/config.js';
import { planTrials } from '../../src/run/plan.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';

describe('queue protocol', () => {
  it('job ids: same run and trial -> same id; anything else -> another', () => {
    expect(jobId('run1', 'k|1')).toBe(jobId('run1', 'k|1'));
    expect(jobId('run1', 'k|1')).not.toBe(jobId('run1', 'k|2'));
    expect(jobId('run1', 'k|1')).not.toBe(jobId('run2', 'k|1'));
    // the separator keeps (run "a", key "bc") apart from (run "ab", key "c")
    expect(jobId('a', 'bc')).not.toBe(jobId('ab', 'c'));
    expect(jobId('run1', 'k|1')).toMatch(/^t-[0-9a-f]{40}$/);
  });

  it('a job carries the task and the config, but not the queue URL nor the stored extras', () => {
    const tasks = loadInline(EXAMPLES);
    const [spec] = planTrials(tasks, 'oracle', [{ provider: 'none', model: 'none' }], ['hinted']);
    const config = {
      agent: 'oracle',
      cwd: '/here',
      queue: 'redis://:secret@host:6379',
      task_meta: { big: 'per-task facts' },
      task_digests: { t: 'x' },
    } as unknown as RunConfig;
    const data = jobData('run1', config, spec);
    expect(JSON.stringify(data)).not.toContain('secret');
    expect(data.config).toEqual({ agent: 'oracle', cwd: '/here' });
    expect(data.task.task.task_id).toBe(spec.task.task.task_id);
    expect(JSON.parse(JSON.stringify(data)).spec).toEqual({
      key: spec.key,
      agent: 'oracle',
      provider: 'none',
      model: 'none',
      mode: 'hinted',
      attempt: 1,
    });
  });

  it('redacts a Redis password for storage', () => {
    expect(redactUrl('redis://:pw@h:1/2')).not.toContain('pw');
    expect(isRedacted(redactUrl('redis://:pw@h:1/2'))).toBe(true);
    expect(redactUrl('redis://h:1')).toBe('redis://h:1');
    expect(isRedacted('redis://h:1')).toBe(false);
  });

  it('artifacts round-trip, big files are cut with a note, odd names are refused', () => {
    const src = join(tempDir(), 'a');
    mkdirSync(src);
    writeFileSync(join(src, 'agent.stdout'), 'hello\u0000\xff');
    writeFileSync(join(src, 'tests-js.stdout'), 'x'.repeat(5000));
    mkdirSync(join(src, 'subdir'));
    const packed = packArtifacts(src, { fileBytes: 1000, totalBytes: 100_000 });
    expect(Object.keys(packed).sort()).toEqual(['agent.stdout', 'tests-js.stdout']);
    const dst = join(tempDir(), 'b');
    unpackArtifacts(dst, { ...packed, '../escape': Buffer.from('no').toString('base64') });
    expect(readFileSync(join(dst, 'agent.stdout'), 'utf8')).toBe('hello\u0000\xff');
    const cut = readFileSync(join(dst, 'tests-js.stdout'), 'utf8');
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(/\[nanobench: cut at 1000 of 5000 bytes\]/);
    expect(() => readFileSync(join(dst, '..', 'escape'))).toThrow();
    expect(packArtifacts(join(src, 'missing'))).toEqual({});
  });
});
