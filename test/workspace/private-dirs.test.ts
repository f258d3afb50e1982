// Issue 12: the source caches hold the PRs' own commits and the results root holds the database;
// an agent running as another user (none-as-nobody, or anyone else on the machine) must not read
// them, whatever the sandbox. Real directories, real clones from the example mirror.
import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { ensureSourceClone } from '../../src/workspace/source.js';
import { EXAMPLES } from '../helpers/cli.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('private directories', () => {
  it("the cache's sources/ is 0700, also when it existed with wider permissions", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'nb-cache-'));
    const source = {
      location: join(EXAMPLES, 'mirror/nanobench-fixtures/textkit.bundle'),
      kind: 'mirror' as const,
    };
    await ensureSourceClone(cache, 'nanobench-fixtures/textkit', source, { commits: [] });
    expect(mode(join(cache, 'sources'))).toBe(0o700);
    chmodSync(join(cache, 'sources'), 0o755);
    await ensureSourceClone(cache, 'nanobench-fixtures/textkit', source, { commits: [] });
    expect(mode(join(cache, 'sources'))).toBe(0o700);
  });

  it('a results root NanoBench creates is 0700; an existing one is left as it is', () => {
    const parent = mkdtempSync(join(tmpdir(), 'nb-results-'));
    Store.open(join(parent, 'new', 'r.sqlite')).close();
    expect(mode(join(parent, 'new'))).toBe(0o700);
    mkdirSync(join(parent, 'mine'), { mode: 0o755 });
    chmodSync(join(parent, 'mine'), 0o755);
    Store.open(join(parent, 'mine', 'r.sqlite')).close();
    expect(mode(join(parent, 'mine'))).toBe(0o755);
  });
});
