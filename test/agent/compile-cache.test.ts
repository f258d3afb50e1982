// The compile cache's location and key, and that a cache which cannot be made is no cache (the
// real Nanocoder writing and reading one: test/agent/nanocoder.e2e.test.ts).
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileCacheArgs,
  compileCacheDir,
  compileCacheRoot,
  ensureCompileCache,
} from '../../src/agent/compile-cache.js';

const node = { path: '/opt/node22/bin/node', version: '22.23.5', source: 'option' as const };
const build = { cliPath: '/x/nanocoder/dist/cli.js', version: '1.30.0' };

describe('compile cache', () => {
  it('lives in the user cache, or where NANOBENCH_COMPILE_CACHE says; off disables it', () => {
    expect(compileCacheRoot({ HOME: '/home/u' })).toBe(
      '/home/u/.cache/nanobench/nanocoder-compile-cache',
    );
    expect(compileCacheRoot({ HOME: '/home/u', XDG_CACHE_HOME: '/c' })).toBe(
      '/c/nanobench/nanocoder-compile-cache',
    );
    expect(compileCacheRoot({ HOME: '/h', NANOBENCH_COMPILE_CACHE: '/d/cc' })).toBe('/d/cc');
    expect(compileCacheRoot({ HOME: '/h', NANOBENCH_COMPILE_CACHE: 'off' })).toBeUndefined();
  });

  it('is one directory per Node binary and version and Nanocoder build', () => {
    const a = compileCacheDir('/r', node, build);
    expect(path.dirname(a)).toBe('/r');
    expect(compileCacheDir('/r', node, build)).toBe(a);
    const others = [
      compileCacheDir('/r', { ...node, version: '22.19.0' }, build),
      compileCacheDir('/r', { ...node, path: '/usr/bin/node' }, build),
      compileCacheDir('/r', node, { ...build, version: '1.31.0' }),
      compileCacheDir('/r', node, { ...build, cliPath: '/y/dist/cli.js' }),
      compileCacheDir('/r', node, { ...build, commit: 'abc' }),
    ];
    expect(new Set([a, ...others]).size).toBe(6);
  });

  it('is enabled by a preload naming the directory, not by the environment', () => {
    const [flag, url] = compileCacheArgs('/r/d "x"');
    expect(flag).toBe('--import');
    expect(decodeURIComponent(url)).toBe(
      'data:text/javascript,import{enableCompileCache}from"node:module";enableCompileCache("/r/d \\"x\\"");',
    );
  });

  it('is no cache when the warm-up writes none (here: a cli.js that loads nothing)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nb-cc-'));
    const cli = path.join(dir, 'cli.js');
    writeFileSync(cli, 'process.exit(1);\n');
    const root = path.join(dir, 'root');
    // This Node (20) has no enableCompileCache: the preload fails and nothing is written.
    const self = {
      path: process.execPath,
      version: process.versions.node,
      source: 'path' as const,
    };
    expect(await ensureCompileCache(root, self, { cliPath: cli, version: '0' })).toBeUndefined();
    expect(readdirSync(root)).toEqual([]); // the warm-up's own directory is gone
  });
});
