// Issue #8: a local run needs no Redis, so nothing the CLI loads at start-up may import bullmq or
// ioredis statically; only the queue paths load them, by dynamic import. Walks the static import
// graph of the built CLI.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    // Static forms only: `import ... from 'x'`, `import 'x'`, `export ... from 'x'`.
    for (const m of src.matchAll(/^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else
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
  it('the CLI entry does not load bullmq or ioredis; the queue modules do', () => {
    const main = join(ROOT, 'dist/cli/main.js');
    expect(existsSync(main)).toBe(true);
    const { files, packages } = staticGraph(main);
    expect(files.size).toBeGreaterThan(20); // the walk follows the graph
    expect(packages).not.toContain('bullmq');
    expect(packages).not.toContain('ioredis');
    expect(staticGraph(join(ROOT, 'dist/queue/coordinator.js')).packages).toContain('bullmq');
    expect(staticGraph(join(ROOT, 'dist/queue/worker.js')).packages).toContain('ioredis');
  });

  it("nor the viewer's server: only `nanobench view` loads hono", () => {
    const { packages } = staticGraph(join(ROOT, 'dist/cli/main.js'));
    expect(packages).not.toContain('hono');
    expect(packages).not.toContain('@hono/node-server');
    expect(staticGraph(join(ROOT, 'dist/view/server.js')).packages).toContain('@hono/node-server');
  });
});
