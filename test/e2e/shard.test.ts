// Issue #8: shards without a queue. `run --shard I/N` runs a deterministic slice of the plan;
// `merge` combines the shard stores into one run whose report equals the unsharded run's report
// (ids, timestamps, durations and paths aside). Mismatched plans are refused unless forced; a
// missing shard leaves the merged run unfinished, and --resume completes it.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, nanobench, runJson, tempDir } from '../helpers/cli.js';

// Mixed outcomes (partial fix on one task, nothing elsewhere), from one script.
const AGENT = `command:${join(AGENTS, 'partial.sh')}`;
const RUN = ['run', 'examples', '--agent', AGENT, '--mode', 'both', '--runs', '1'];

// What may differ between two runs of the same plan: identities, clocks, durations (the report's
// phase times too), paths.
const VOLATILE = /^(run_id|id|created_at|finished_at|started_at|duration_ms|artifacts_dir|phases)$/;

function normalise(x: unknown): unknown {
  if (Array.isArray(x)) {
    const items = x.map(normalise);
    // Trial order follows completion order in a run: compare as a multiset.
    return items.every((i) => i !== null && typeof i === 'object')
      ? items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      : items;
  }
  if (x && typeof x === 'object')
    return Object.fromEntries(
      Object.entries(x)
        .filter(([k]) => !VOLATILE.test(k))
        .map(([k, v]) => [k, normalise(v)]),
    );
  return x;
}

function report(db: string): unknown {
  const r = nanobench(['report', '--db', db, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return normalise(JSON.parse(r.stdout));
}

describe('shards and merge', () => {
  const dir = tempDir();
  const full = join(dir, 'full.sqlite');
  const shardDb = (i: number) => join(dir, `shard${i}.sqlite`);
  // Sorted: a slice is a set of trials; two run at once and are stored in the order they end.
  const keysOf = (out: ReturnType<typeof runJson>) =>
    out.trials.map((t) => `${t.task_id}|${t.mode}|${t.attempt}`).sort();
  let fullKeys: string[];

  beforeAll(() => {
    fullKeys = keysOf(runJson([...RUN, '--db', full]));
  });

  it('three shards partition the plan, and merged they report like the unsharded run', () => {
    const slices = [1, 2, 3].map((i) =>
      keysOf(runJson([...RUN, '--shard', `${i}/3`, '--db', shardDb(i)])),
    );
    expect(slices.flat().sort()).toEqual([...fullKeys].sort()); // disjoint, complete
    expect(slices.filter((s) => s.length > 0).length).toBeGreaterThan(1);
    // Deterministic: the same shard again is the same slice.
    expect(keysOf(runJson([...RUN, '--shard', '2/3', '--db', join(dir, 'again.sqlite')]))).toEqual(
      slices[1],
    );

    const out = join(dir, 'merged.sqlite');
    const m = nanobench(['merge', out, shardDb(1), shardDb(2), shardDb(3), '--json']);
    expect(m.code, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout)).toMatchObject({ status: 'finished', trials: fullKeys.length });
    expect(report(out)).toEqual(report(full));
  });

  it('refuses runs of different plans unless --force', () => {
    const other = join(dir, 'nop.sqlite');
    runJson([
      'run',
      'examples',
      '--agent',
      'nop',
      '--mode',
      'both',
      '--runs',
      '1',
      '--shard',
      '3/3',
      '--db',
      other,
    ]);
    const out = join(dir, 'refused.sqlite');
    const r = nanobench(['merge', out, shardDb(1), shardDb(2), other]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/merge refused:[\s\S]*different plans: agent/);
    expect(r.stderr).toMatch(/--force/);
    expect(nanobench(['report', '--db', out]).code).toBe(2); // nothing was written

    const forced = nanobench(['merge', out, shardDb(1), shardDb(2), other, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/warning: different plans/);
  });

  it('a missing shard leaves the merged run unfinished; --resume completes it', () => {
    const out = join(dir, 'partial.sqlite');
    const m = nanobench(['merge', out, shardDb(1), shardDb(3), '--json']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toMatch(/shards 2\/3 missing/);
    expect(JSON.parse(m.stdout)).toMatchObject({
      status: 'interrupted',
      plan_size: fullKeys.length,
    });

    const resumed = runJson(['run', '--resume', '--db', out]);
    expect(resumed.trials).toHaveLength(fullKeys.length);
    expect(report(out)).toEqual(report(full));
  });
});
