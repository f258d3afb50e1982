// Issue 12: "run --resume reuses the same workspace path and does not see the leftover process;
// the leftover wrote the fix after the resumed agent had done nothing, and the trial was stored
// as pass 1.00." Executions never share a workspace, and a resume removes what earlier ones left,
// overlay mounts included (issue 16).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endLeftovers } from '../../src/run/leftovers.js';
import { RunPaths } from '../../src/trial/paths.js';
import {
  layersDir,
  makeWorkspace,
  mountTable,
  releaseWorkspace,
} from '../../src/workspace/layers.js';
import { tempDir } from '../helpers/cli.js';
import { isRoot } from '../helpers/processes.js';

describe('executions of a run', () => {
  it('never share a workspace or scratch directory', () => {
    const db = join(tempDir('nb-exec-'), 'r.sqlite');
    const first = new RunPaths(db);
    const resumed = new RunPaths(db);
    expect(resumed.workspace('run1', 'task|a|m|hinted|1')).not.toBe(
      first.workspace('run1', 'task|a|m|hinted|1'),
    );
    expect(resumed.scratch('run1', 'k')).not.toBe(first.scratch('run1', 'k'));
    // Artifacts are the trial's, whichever execution produced them.
    expect(resumed.artifacts('run1', 'k')).toBe(first.artifacts('run1', 'k'));
  });

  it('a trial running twice at once in one process gets a second directory (issue 22)', () => {
    const paths = new RunPaths(join(tempDir('nb-exec-'), 'r.sqlite'));
    const first = paths.claimTrialDirs('run1', 'k');
    const again = paths.claimTrialDirs('run1', 'k');
    expect(first.workspace).toBe(paths.workspace('run1', 'k'));
    expect(again.workspace).not.toBe(first.workspace);
    expect(again.scratch).not.toBe(first.scratch);
    // Both are this execution's: a resume of the run would not take them for leftovers.
    for (const d of [first.workspace, again.workspace, `${again.workspace}.layers`, again.scratch])
      expect(paths.isOwn(basename(d))).toBe(true);
    expect(new RunPaths(paths.dbPath).isOwn(basename(again.workspace))).toBe(false);
    // Released, the first directory is free again; the second stays taken until released.
    first.release();
    expect(paths.claimTrialDirs('run1', 'k').workspace).toBe(first.workspace);
    expect(paths.claimTrialDirs('run1', 'k').workspace).not.toBe(again.workspace);
  });

  it("a resume removes the earlier executions' directories of that run only", async () => {
    const db = join(tempDir('nb-exec-'), 'r.sqlite');
    const killed = new RunPaths(db);
    const other = new RunPaths(db);
    for (const dir of [
      killed.workspace('run1', 'k'),
      killed.scratch('run1', 'k'),
      other.workspace('run2', 'k'),
    ]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'fix.js'), 'late write by a leftover agent');
    }
    const resumed = new RunPaths(db);
    mkdirSync(resumed.workspace('run1', 'k'), { recursive: true });
    const said = await endLeftovers(resumed, 'run1');
    expect(said).toMatch(
      /removed 2 workspace\/scratch directories left by an earlier execution of run run1/,
    );
    expect(existsSync(killed.workspace('run1', 'k'))).toBe(false);
    expect(existsSync(killed.scratch('run1', 'k'))).toBe(false);
    expect(existsSync(resumed.workspace('run1', 'k'))).toBe(true);
    expect(existsSync(other.workspace('run2', 'k'))).toBe(true);
  });
});

describe.skipIf(!isRoot)('overlays a killed execution left mounted', () => {
  it('are unmounted by the resume, then removed with their layers', async () => {
    const db = join(tempDir('nb-exec-'), 'r.sqlite');
    const killed = new RunPaths(db);
    const lower = join(tempDir('nb-lower-'), 'ws');
    mkdirSync(lower);
    writeFileSync(join(lower, 'a.js'), 'base');
    const ws = killed.workspace('run1', 'k');
    await makeWorkspace(lower, ws, 'overlay');
    writeFileSync(join(ws, 'fix.js'), 'late write by a leftover agent');
    const resumed = new RunPaths(db);
    const mine = resumed.workspace('run1', 'k2');
    await makeWorkspace(lower, mine, 'overlay');
    const said = await endLeftovers(resumed, 'run1');
    expect(said).toMatch(/unmounted 1 workspace overlay\(s\) and removed 1 workspace/);
    expect(mountTable().some((m) => m.point === ws)).toBe(false);
    expect(existsSync(ws)).toBe(false);
    expect(existsSync(layersDir(ws))).toBe(false);
    // Its own execution's overlay is untouched; the snapshot never saw the late write.
    expect(mountTable().some((m) => m.point === mine)).toBe(true);
    expect(existsSync(layersDir(mine))).toBe(true);
    expect(existsSync(join(lower, 'fix.js'))).toBe(false);
    await releaseWorkspace(mine);
  });
});
