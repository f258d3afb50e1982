// `nanobench view` as a user starts it: the URL on stdout, a note on stderr, 0 when stopped;
// one line and exit 2 for a non-local address (unless --allow-remote), a bad port or a database
// that is missing or not NanoBench's, which it never creates.
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { nanobench, nanobenchAsync, tempDir } from '../helpers/cli.js';

function store(): string {
  const db = join(tempDir('nb-view-cli-'), 'r.sqlite');
  Store.open(db).close();
  return db;
}

const oneLine = (s: string) => s.trimEnd().split('\n');

describe('nanobench view', () => {
  it('refuses to listen beyond this machine unless asked, in one line', () => {
    const r = nanobench(['view', '--db', store(), '--host', '0.0.0.0', '--port', '0'], {
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toEqual([
      'nanobench: --host 0.0.0.0 is not a loopback address: the viewer has no authentication, so anyone who reaches it reads every trial; pass --allow-remote to listen there anyway',
    ]);
    expect(r.stdout).toBe('');
  });

  it('a missing or foreign database, or a bad port, is one line and exit 2; nothing is created', () => {
    const dir = tempDir('nb-view-cli-');
    const missing = join(dir, 'none.sqlite');
    const foreign = join(dir, 'foreign.sqlite');
    writeFileSync(foreign, '');
    const cases: [string[], RegExp][] = [
      [['--db', missing, '--port', '0'], /none\.sqlite: no such results database \(check --db\)/],
      [['--db', foreign, '--port', '0'], /foreign\.sqlite: not a NanoBench results database/],
      [['--db', store(), '--port', '70000'], /--port must be an integer from 0 to 65535/],
      [['--db', store(), '--port', 'x'], /--port must be an integer/],
    ];
    for (const [args, message] of cases) {
      const r = nanobench(['view', ...args], { timeoutMs: 20_000 });
      expect(r.code, args.join(' ')).toBe(2);
      expect(oneLine(r.stderr), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(missing)).toBe(false);
  });

  it('prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const child = nanobenchAsync(['view', '--db', store(), '--port', '0']);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    while (!out.includes('\n')) await once(child.stdout, 'data');
    expect(out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\n$/);
    const page = await fetch(out.trim());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Runs</h1>');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(err).toMatch(/read-only, at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl-C stops it\)\n$/);
  });
});
