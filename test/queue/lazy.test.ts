// Issue #8: a local run needs no Redis, so nothing the CLI loads at start-up may import bullmq or
// ioredis statically; only the queue paths load them, by dynamic import. Walks the static import
// graph of the CLI's sources (not dist/, which may be stale): type-only imports are left out, as
// tsc erases them.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// Static forms only: `import ... from 'x'`, `import 'x'`, `export ... from 'x'`, over several
// lines when a named list does. Group 1: `type ` when the whole statement is type-only; group 2:
// the clause; group 3: the module.
const STATIC = /^\s*(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s*from\s*)?['"]([^'"]+)['"]/gm;

/** The module a static import loads at run time, or undefined when tsc erases the import. */
function loaded(m: RegExpMatchArray): string | undefined {
  if (m[1]) return undefined; // `import type` / `export type`
  const named = /^\{([^}]*)\}$/.exec((m[2] ?? '').trim());
  // `import { type A, type B } from` is erased too (no verbatimModuleSyntax).
  if (named?.[1].split(',').every((s) => !s.trim() || /^type\s/.test(s.trim()))) return undefined;
  return m[3];
}
const loadedSpecifier = (statement: string) => {
  const m = [...statement.matchAll(STATIC)][0];
  return m ? loaded(m) : undefined;
};

function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(STATIC)) {
      const spec = loaded(m);
      if (!spec) continue;
      if (spec.startsWith('.')) {
        const ts = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        visit(existsSync(ts) ? ts : `${ts}x`); // .tsx for the viewer's pages
      } else if (!spec.startsWith('node:'))
        packages.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return { files, packages };
}

describe('lazy queue', () => {
  it('reads which imports survive compilation', () => {
    expect(loadedSpecifier("import { Queue } from 'bullmq'")).toBe('bullmq');
    expect(loadedSpecifier("import { type Job, Worker } from 'bullmq'")).toBe('bullmq');
    expect(loadedSpecifier("import type { Job } from 'bullmq'")).toBeUndefined();
    expect(loadedSpecifier("import { type Job, type Queue } from 'bullmq'")).toBeUndefined();
    expect(loadedSpecifier("export { x } from './x.js'")).toBe('./x.js');
    expect(loadedSpecifier("import './side-effect.js'")).toBe('./side-effect.js');
    expect(loadedSpecifier("export const DB = './results.sqlite';")).toBeUndefined();
    expect(loadedSpecifier("const q = await import('bullmq');")).toBeUndefined();
  });

  it('the CLI entry does not load bullmq or ioredis; the queue modules do', () => {
    const main = join(ROOT, 'src/cli/main.ts');
    expect(existsSync(main)).toBe(true);
    const { files, packages } = staticGraph(main);
    expect(files.size).toBeGreaterThan(20); // the walk follows the graph
    for (const f of files) expect(existsSync(f), f).toBe(true);
    expect(packages).toContain('commander');
    expect(packages).not.toContain('bullmq');
    expect(packages).not.toContain('ioredis');
    expect(staticGraph(join(ROOT, 'src/queue/coordinator.ts')).packages).toContain('bullmq');
    expect(staticGraph(join(ROOT, 'src/queue/worker.ts')).packages).toContain('ioredis');
  });

  it("nor the viewer's server: only `nanobench view` loads hono", () => {
    const { packages } = staticGraph(join(ROOT, 'src/cli/main.ts'));
    expect(packages).not.toContain('hono');
    expect(packages).not.toContain('@hono/node-server');
    expect(staticGraph(join(ROOT, 'src/view/server.tsx')).packages).toContain('@hono/node-server');
  });
});
