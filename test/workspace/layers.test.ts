// Issue 16: copy-free workspaces. Under every provisioning mode (kernel overlay, fuse-overlayfs,
// reflink copy, plain copy), on a real snapshot of an example task (git, its install output):
// a trial's writes never reach the snapshot or another trial's workspace; the diff read from the
// upper layer is the diff of a full walk; the guard and hardening that look only at the upper
// layer do exactly what they do on the whole tree; nothing stays mounted after a trial, even a
// failed one.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/types.js';
import { guardWorkspace } from '../../src/integrity/audit.js';
import type { TrialSpec } from '../../src/run/plan.js';
import type { LoadedTask } from '../../src/task/load.js';
import type { ResolvedTask } from '../../src/task/patches.js';
import { RunPaths } from '../../src/trial/paths.js';
import { runTrial } from '../../src/trial/run-trial.js';
import { ctimeMark } from '../../src/util/fs-tree.js';
import { restoreInfrastructure } from '../../src/verify/harden.js';
import { upperChanges } from '../../src/workspace/changes.js';
import { workspaceDiff } from '../../src/workspace/diff.js';
import {
  type Layers,
  layersDir,
  makeWorkspace,
  mountTable,
  releaseWorkspace,
} from '../../src/workspace/layers.js';
import { ensureSnapshot, type Snapshot } from '../../src/workspace/provision.js';
import { ensureSourceClone, resolveSource } from '../../src/workspace/source.js';
import { EXAMPLES } from '../helpers/cli.js';
import { type ModeCase, provisionModes } from '../helpers/provision-modes.js';
import { loadInline } from '../helpers/tasks.js';

const lt = loadInline(EXAMPLES).find((t) => t.task.task_id === 'shopfront-001')!;
const modes = await provisionModes();
afterAll(() => modes.release());

/** Every entry of a tree with its type, mode and content: equal digests, equal trees. */
function treeDigest(root: string, skip: (rel: string) => boolean = () => false): string {
  const h = createHash('sha256');
  const visit = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const st = lstatSync(join(root, r));
      h.update(`${r}\0${st.mode}\0`);
      if (st.isSymbolicLink()) h.update(readlinkSync(join(root, r)));
      else if (st.isFile()) h.update(readFileSync(join(root, r)));
      else if (st.isDirectory()) visit(r);
    }
  };
  visit('');
  return h.digest('hex');
}

const sh = (cwd: string, script: string) => execFileSync('sh', ['-c', script], { cwd });

function write(ws: string, rel: string, text: string): void {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

/** What agents do to a workspace, every kind of change the upper layer can hold. */
function agentChanges(ws: string): void {
  appendFileSync(join(ws, 'web/src/api.js'), '\n// changed\n'); // a tracked file
  write(ws, 'web/src/added.js', 'export const added = 1;\n'); // a new file
  write(ws, 'web/src/we ird ünï.js', 'odd name\n');
  write(ws, 'web/src/generated/extra.js', 'ignored\n'); // in an ignored directory
  appendFileSync(join(ws, 'web/src/generated/currencies.js'), '// ignored install output\n');
  write(ws, 'node_modules/left-pad/index.js', 'module.exports = 1;\n'); // ignored
  rmSync(join(ws, 'README.md')); // a deleted file (a whiteout)
  rmSync(join(ws, 'shared'), { recursive: true }); // a deleted directory
  // Deleted and made again: an opaque directory.
  rmSync(join(ws, 'api/tests'), { recursive: true });
  write(ws, 'api/tests/test_new.py', 'import unittest\n');
  write(ws, 'api/tests/__init__.py', '# different\n');
  sh(ws, 'mv web/test web/spec'); // a renamed directory (copied: redirect_dir is off)
  // Type changes: a file becomes a directory, a directory a file.
  rmSync(join(ws, 'scripts/setup.mjs'));
  write(ws, 'scripts/setup.mjs/inner.js', 'inner\n');
  rmSync(join(ws, 'api/shopfront_api'), { recursive: true });
  write(ws, 'api/shopfront_api', 'now a file\n');
  symlinkSync('../README.md', join(ws, 'web/link')); // a link (dangling, too)
  chmodSync(join(ws, 'web/package.json'), 0o755); // the executable bit
  utimesSync(join(ws, 'web/src/format.js'), new Date(0), new Date(0)); // copied up, unchanged
  appendFileSync(join(ws, 'web/src/html.js'), ''); // opened for writing, unchanged
  write(ws, '.nanocoder/state.json', '{}'); // never part of the diff
  mkdirSync(join(ws, 'empty/dir'), { recursive: true });
}

/** Test infrastructure and .git, which the guard and hardening must put back. */
function attacks(ws: string, clone: string): void {
  const pkg = JSON.parse(readFileSync(join(ws, 'web/package.json'), 'utf8'));
  pkg.scripts = { test: 'echo ok' };
  pkg.exports = { '.': './src/api.js', './added': './src/added.js' };
  writeFileSync(join(ws, 'web/package.json'), JSON.stringify(pkg));
  write(ws, 'api/conftest.py', 'import pytest\n');
  write(ws, 'web/src/__mocks__/api.js', 'export default {}\n');
  write(ws, 'node_modules/left-pad/index.js', 'module.exports = 2;\n');
  write(ws, 'unittest/__init__.py', 'shadow\n'); // a stdlib shadow
  appendFileSync(join(ws, '.git/config'), '[alias]\n\tx = !true\n');
  write(ws, '.git/hooks/pre-commit', '#!/bin/sh\n');
  sh(ws, 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m agent');
  // The repository's future, from NanoBench's own clone (the guard names its commits).
  sh(ws, `git fetch -q ${clone} '+refs/*:refs/agent/*'`);
  write(ws, 'vendor/lib/.git/HEAD', 'ref: refs/heads/main\n'); // a nested repository
  symlinkSync('/etc', join(ws, 'escape')); // a link out of the workspace
}

const spec = (task: ResolvedTask): TrialSpec => ({
  key: `${task.task_id}|nop|none|none|hinted|1`,
  task: { ...(lt as LoadedTask<ResolvedTask>), task },
  agent: 'fake',
  provider: 'none',
  model: 'none',
  mode: 'hinted',
  attempt: 1,
});

describe.each(modes.cases)('provisioning mode $mode', (c: ModeCase) => {
  let snap: Snapshot;
  let clone: string;
  let n = 0;
  const lower = () => join(snap.dir, 'ws');
  const fresh = async (): Promise<{ ws: string; layers: Layers }> => {
    const ws = join(c.root, 'workspaces', `ws-${n++}`);
    return { ws, layers: await makeWorkspace(lower(), ws, c.mode) };
  };
  const changesOf = (ws: string, layers: Layers) =>
    layers.upper ? upperChanges(ws, layers.lower, layers.upper) : undefined;

  beforeAll(async () => {
    if (c.skip) return;
    const cache = join(c.root, 'cache');
    clone = await ensureSourceClone(cache, lt.task.repo, resolveSource(lt), {
      commits: [lt.task.base_commit],
    });
    snap = await ensureSnapshot(cache, lt.task, clone);
  });

  it.skipIf(c.skip)("a trial's writes reach neither the snapshot nor another trial", async () => {
    const before = treeDigest(lower());
    const a = await fresh();
    const b = await fresh();
    expect(a.layers.kind).toBe(c.mode);
    agentChanges(a.ws);
    attacks(a.ws, clone);
    sh(a.ws, 'git gc -q --prune=now'); // rewrites every pack of .git
    expect(treeDigest(lower())).toBe(before);
    expect(treeDigest(b.ws)).toBe(before);
    expect(await workspaceDiff(b.ws, snap.baselineTree)).toMatchObject({ files: [], patch: '' });
    // git works on every kind of workspace, and sees the agent's commit in its own only.
    expect(sh(a.ws, 'git log -1 --format=%s').toString().trim()).toBe('agent');
    expect(sh(b.ws, 'git rev-parse HEAD').toString().trim()).toBe(lt.task.base_commit);
    for (const w of [a, b]) await releaseWorkspace(w.ws);
    expect(treeDigest(lower())).toBe(before);
  });

  it.skipIf(c.skip)('the diff from the changed paths is the diff of a full walk', async () => {
    const { ws, layers } = await fresh();
    agentChanges(ws);
    const changed = changesOf(ws, layers);
    if (c.mode === 'overlay' || c.mode === 'fuse-overlayfs') {
      expect(changed).toBeDefined();
      // Only what the agent touched: not the snapshot's thousands of other entries.
      expect(changed).toContain('README.md');
      expect(changed).toContain('shared');
      expect(changed).not.toContain('web/src/productCard.js');
    }
    const full = await workspaceDiff(ws, snap.baselineTree);
    const fromUpper = await workspaceDiff(ws, snap.baselineTree, changed);
    expect(fromUpper).toEqual(full);
    expect(full.files).toEqual(
      expect.arrayContaining([
        'README.md',
        'api/shopfront_api',
        'api/shopfront_api/catalog.py',
        'api/tests/test_new.py',
        'scripts/setup.mjs/inner.js',
        'shared/currencies.json',
        'web/link',
        'web/package.json',
        'web/spec/api.test.js',
        'web/src/added.js',
        'web/src/api.js',
        'web/src/we ird ünï.js',
        'web/test/api.test.js',
      ]),
    );
    for (const f of full.files) expect(f).not.toMatch(/generated|node_modules|\.nanocoder/);
    expect(full.files).not.toContain('web/src/format.js');
    expect(full.files).not.toContain('web/src/html.js');
    // A changed .gitignore can change how unchanged files count: then the whole tree is read.
    appendFileSync(join(ws, '.gitignore'), 'web/src/productCard.js\n');
    const ignored = await workspaceDiff(ws, snap.baselineTree, changesOf(ws, layers));
    expect(ignored).toEqual(await workspaceDiff(ws, snap.baselineTree));
    expect(ignored.files).toContain('web/src/productCard.js');
    await releaseWorkspace(ws);
  });

  it.skipIf(c.skip)(
    'the guard and hardening on the changed paths do what they do on the whole tree',
    async () => {
      // Two workspaces changed alike: one handled from its changed paths, one walked whole.
      const [a, b] = [await fresh(), await fresh()];
      const since = ctimeMark(c.root);
      for (const w of [a, b]) {
        agentChanges(w.ws);
        attacks(w.ws, clone);
      }
      const changed = changesOf(a.ws, a.layers);
      const ga = guardWorkspace(a.ws, lower(), clone, changed);
      const gb = guardWorkspace(b.ws, lower(), clone);
      expect(ga).toEqual(gb);
      expect(ga.git).toEqual(
        expect.arrayContaining(['.git/config', '.git/hooks', expect.stringMatching(/^commit /)]),
      );
      expect(ga.nestedGit).toEqual(['vendor/lib/.git']);
      expect(ga.escapingSymlinks).toEqual(['escape -> /etc']);
      const ha = restoreInfrastructure(a.ws, lower(), lt.task, since, undefined, changed);
      const hb = restoreInfrastructure(b.ws, lower(), lt.task, since);
      expect(ha).toEqual(hb);
      expect(ha.touchedTests).toEqual(expect.arrayContaining(['api/tests', 'web/test']));
      expect(ha.touchedInfra).toEqual(
        expect.arrayContaining([
          'api/conftest.py',
          'node_modules/',
          'unittest',
          'web/package.json',
        ]),
      );
      // The same trees after: .git is the snapshot's again, the infrastructure too.
      expect(treeDigest(a.ws)).toBe(treeDigest(b.ws));
      const git = (ws: string) => treeDigest(join(ws, '.git'), (r) => r === 'index');
      expect(git(a.ws)).toBe(git(join(snap.dir, 'ws')));
      for (const w of [a, b]) await releaseWorkspace(w.ws);
    },
  );

  it.skipIf(c.skip)(
    'a trial leaves nothing mounted and nothing behind, failed or kept',
    async () => {
      const failing: Agent = {
        name: 'fake',
        run: async ({ workspace }) => {
          writeFileSync(join(workspace, 'web/src/api.js'), 'broken');
          throw new Error('the agent crashed');
        },
      };
      const paths = new RunPaths(join(c.root, 'results', 'r.sqlite'), join(c.root, 'cache'));
      const env = (keep: boolean) => ({
        runId: 'r1',
        paths,
        agent: failing,
        keepWorkspaces: keep,
        provision: c.mode,
        mirrorDir: join(EXAMPLES, 'mirror'),
      });
      const rec = await runTrial(spec(lt.task), env(false));
      expect(rec).toMatchObject({ status: 'error', error_stage: 'internal' });
      expect(rec.details.provision).toMatchObject({ mode: c.mode });
      const ws = paths.workspace('r1', spec(lt.task).key);
      const mounted = () => mountTable().filter((m) => m.point.startsWith(join(c.root, 'results')));
      expect(mounted()).toEqual([]);
      expect(readdirSync(join(c.root, 'results', 'workspaces', 'r1'))).toEqual([]);
      // Kept: a plain directory with what the agent left, no layers, no mount.
      await runTrial(spec(lt.task), env(true));
      expect(mounted()).toEqual([]);
      expect(readFileSync(join(ws, 'web/src/api.js'), 'utf8')).toBe('broken');
      expect(() => lstatSync(layersDir(ws))).toThrow();
      await releaseWorkspace(ws);
    },
  );
});
