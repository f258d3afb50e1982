// Issue #8: shard assignment is a pure function of the trial key (not of plan order or size).
import { describe, expect, it } from 'vitest';
import { parseShard, shardOf } from '../../src/run/shard.js';

const keys = Array.from(
  { length: 400 },
  (_, i) => `task-${i % 40}|nop|none|none|hinted|${(i % 10) + 1}`,
);

describe('shards', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['3/4', { index: 3, count: 4 }],
    [' 2/2 ', { index: 2, count: 2 }],
  ])('parses %j', (s, want) => expect(parseShard(s)).toEqual(want));

  it.each(['0/3', '4/3', '1/0', '1', 'a/b', '1/2/3', '-1/2'])('rejects %j', (s) =>
    expect(() => parseShard(s)).toThrow(/--shard must be I\/N/),
  );

  it('every key lands in exactly one shard, the same one every time', () => {
    for (const n of [1, 2, 3, 7]) {
      const a = keys.map((k) => shardOf(k, n));
      expect(a).toEqual(keys.map((k) => shardOf(k, n)));
      expect(a.every((s) => s >= 1 && s <= n)).toBe(true);
      expect(new Set(a).size).toBe(n); // 400 keys reach every shard
    }
  });

  it('depends on the key only: dropping other trials moves none', () => {
    const before = new Map(keys.map((k) => [k, shardOf(k, 5)]));
    const fewer = keys.filter((_, i) => i % 3 === 0);
    for (const k of fewer) expect(shardOf(k, 5)).toBe(before.get(k));
  });
});
