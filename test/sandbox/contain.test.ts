// Issue 12: agents must not outlive the harness. A stand-in for NanoBench (test/fixtures/harness/
// hold-session.mjs) launches a command through a real session; the command leaves background
// processes behind, one of them detached (setsid), outside the workspace and without the
// environment tags. NanoBench is then killed with SIGKILL (the OOM killer, a CI cancel), and no
// process of the command may survive: under bwrap, none-as-nobody, plain none as root, and none
// as an unprivileged user (each in a pid namespace that dies with the launcher). Where no
// namespace can be made, pdeathsig takes the command and killRunLeftovers the rest: only what a
// dead execution of the run itself left (issue 22: a resume ended a live worker's agents).
import { randomUUID } from 'node:crypto';
import { chownSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { formatExecution, startTime } from '../../src/util/execution.js';
import { killRunLeftovers } from '../../src/util/process-group.js';
import { ROOT, varTempDir } from '../helpers/cli.js';
import {
  asUnprivileged,
  cleanup,
  isRoot,
  killHard,
  NOBODY,
  processesWith,
  start,
  unprivilegedDir,
  waitFor,
} from '../helpers/processes.js';
import { noBwrap } from './require-bwrap.js';

const HOLD = join(ROOT, 'test/fixtures/harness/hold-session.mjs');
const dirs: string[] = [];
const markers: string[] = [];
afterEach(() => {
  for (const m of markers.splice(0)) cleanup(m);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A loop whose command line carries the marker ($0), so it can be found from the host. */
const loop = (marker: string) => `sh -c 'while :; do sleep 1; done' ${marker}`;

/**
 * The agent: a foreground loop, a background one, and (evasive) a detached, untagged one. The
 * marker is put together at run time, so only the loops carry it (not the launchers' argv).
 */
function agentScript(marker: string, evasive: boolean): string {
  const half = marker.length >> 1;
  return [
    `M=${marker.slice(0, half)}; M="\${M}${marker.slice(half)}"`,
    `${loop('"$M"')} &`,
    evasive ? `(cd / && env -i PATH="$PATH" setsid ${loop('"$M"')} >/dev/null 2>&1 &)` : '',
    `exec ${loop('"$M"')}`,
  ]
    .filter(Boolean)
    .join('\n');
}

async function holdAndKill(o: {
  mode: string;
  unprivileged?: boolean;
  evasive?: boolean;
  env?: NodeJS.ProcessEnv;
}) {
  const marker = `nb-contain-${randomUUID()}`;
  markers.push(marker);
  const dir = o.unprivileged ? unprivilegedDir('nb-contain-') : varTempDir('nb-contain-');
  dirs.push(dir);
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  if (o.unprivileged && isRoot) chownSync(ws, NOBODY.uid, NOBODY.gid);
  const runId = `run-${randomUUID()}`;
  const argv = [...(o.unprivileged ? asUnprivileged() : []), process.execPath, HOLD, o.mode, ws];
  const harness = start(
    [...argv, runId, '--', '/bin/sh', '-c', agentScript(marker, o.evasive ?? true)],
    { env: o.env },
  );
  const expected = o.evasive === false ? 2 : 3;
  const up = await waitFor(() => processesWith(marker).length >= expected, 30_000);
  expect(up, harness.output()).toBe(true);
  const pid = harness.pid!;
  const started = startTime(pid);
  await killHard(harness);
  await waitFor(() => processesWith(marker).length === 0, 5_000);
  return {
    marker,
    runId,
    pid,
    started,
    survivors: processesWith(marker),
    output: harness.output(),
  };
}

describe('after a SIGKILL of NanoBench no process of the agent survives', () => {
  it.skipIf(noBwrap)('bwrap', async () => {
    const r = await holdAndKill({ mode: 'bwrap' });
    expect(r.output).toContain('launched bwrap');
    expect(r.survivors).toEqual([]);
  });

  it.skipIf(!isRoot)('none as root: none-as-nobody', async () => {
    const r = await holdAndKill({ mode: 'none' });
    expect(r.output).toContain('launched none-as-nobody');
    expect(r.survivors).toEqual([]);
  });

  it.skipIf(!isRoot)('plain none as root: a pid namespace', async () => {
    const r = await holdAndKill({ mode: 'plain' });
    expect(r.output).toContain('launched none');
    expect(r.survivors).toEqual([]);
  });

  it('none as an unprivileged user: a pid namespace in a user namespace', async () => {
    const r = await holdAndKill({ mode: 'none', unprivileged: true });
    expect(r.output).toContain('launched none');
    expect(r.output).not.toContain('none-as-nobody');
    expect(r.survivors).toEqual([]);
  });

  it('without unshare: pdeathsig takes the command, killRunLeftovers the rest of its run', async () => {
    // A machine without util-linux's unshare: only what the harness needs is on PATH.
    const bin = varTempDir('nb-path-');
    dirs.push(bin);
    for (const tool of ['sh', 'env', 'setpriv', 'sleep', 'setsid'])
      symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const r = await holdAndKill({ mode: 'plain', evasive: false, env: { PATH: bin } });
    // The loop the harness launched died with it; the one it left in the background did not.
    expect(r.survivors).toHaveLength(1);
    // Issue 22: the survivor names the dead harness as the execution that started it.
    const dead = formatExecution({ role: 'run', pid: r.pid, start: r.started, host: hostname() });
    expect(readFileSync(`/proc/${r.survivors[0]}/environ`, 'utf8')).toContain(
      `NANOBENCH_EXECUTION=${dead}\0`,
    );
    const loop = ['sh', '-c', 'while :; do sleep 1; done', r.marker];
    const tagged = (runId: string, execution: string) =>
      start([
        '/usr/bin/env',
        `NANOBENCH_RUN_ID=${runId}`,
        `NANOBENCH_EXECUTION=${execution}`,
        ...loop,
      ]);
    const self = { pid: process.pid, start: startTime(process.pid), host: hostname() };
    const spared = [
      // Another run's process is none of this run's business.
      tagged(`${r.runId}-other`, dead),
      // A live execution of the run (a holder still stopping) ends its own processes.
      tagged(r.runId, formatExecution({ role: 'run', ...self })),
      // A queue worker's, live or dead: the workers' own sweep ends a dead one's.
      tagged(r.runId, formatExecution({ role: 'worker', ...self })),
      tagged(
        r.runId,
        formatExecution({ role: 'worker', pid: r.pid, start: r.started, host: hostname() }),
      ),
    ].map((p) => p.pid!);
    // The pid of a dead execution, now taken by a later process (this one), is no sign of life.
    const reused = tagged(
      r.runId,
      formatExecution({ role: 'run', pid: process.pid, start: '1', host: hostname() }),
    ).pid!;
    const all = [...r.survivors, ...spared, reused];
    expect(await waitFor(() => all.every((p) => processesWith(r.marker).includes(p)), 5_000)).toBe(
      true,
    );
    const killed = await killRunLeftovers(r.runId);
    // (Their `sleep 1` children too, which carry the same environment.)
    expect(killed).toEqual(expect.arrayContaining([...r.survivors, reused]));
    for (const p of spared) expect(killed).not.toContain(p);
    await waitFor(() => processesWith(r.marker).length === spared.length, 5_000);
    expect(processesWith(r.marker).sort()).toEqual(spared.sort());
  });
});
