// The install command on this machine: two environments built at once (validate --concurrency,
// trials of two tasks) each get their own Yarn cache, outside the workspace and gone afterwards.
// Yarn 1's shared global cache broke one of two installs that ran together (immer-1255 beside
// immer-1289: "the file appears to be corrupt").
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ensureSnapshot } from '../../src/workspace/provision.js';
import { ensureSourceClone, resolveSource } from '../../src/workspace/source.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';

it('gives each install its own Yarn cache, removed after it', async () => {
  const lt = loadInline(EXAMPLES).find((t) => t.task.task_id === 'textkit-001')!;
  const cache = tempDir('nb-install-env-');
  const clone = await ensureSourceClone(cache, lt.task.repo, resolveSource(lt), {
    commits: [lt.task.base_commit],
  });
  // Two installs (different commands: two environments) that run at the same time.
  const install = (n: number) =>
    `printf %s "$YARN_CACHE_FOLDER" > yarn-cache-${n}.txt && mkdir -p "$YARN_CACHE_FOLDER" && touch "$YARN_CACHE_FOLDER/pkg" && sleep 0.3`;
  const snaps = await Promise.all(
    [1, 2].map((n) => ensureSnapshot(cache, { ...lt.task, install_command: install(n) }, clone)),
  );
  const used = snaps.map((s, i) =>
    readFileSync(join(s.dir, 'ws', `yarn-cache-${i + 1}.txt`), 'utf8'),
  );
  expect(used[0]).not.toBe(used[1]);
  for (const [i, s] of snaps.entries()) {
    expect(used[i]).not.toContain(join(s.dir, 'ws')); // never part of the environment
    expect(existsSync(used[i])).toBe(false);
    expect(existsSync(join(s.dir, 'yarn-cache'))).toBe(false);
  }
});
