// Issue 12: "After kill -9 of nanobench (what the OOM killer or a CI cancel does), the agent keeps
// running with no time limit." A real run, through the CLI, of a command agent that leaves
// background processes behind (one detached, untagged, outside the workspace); nanobench is
// killed with SIGKILL while the agent runs, and no process of the trial may survive: under
// bwrap, under none as root (none-as-nobody) and under none as an unprivileged user. The overlay
// its workspace was mounted on (issue 16) is left, and the run's resume unmounts it.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { endLeftovers } from '../../src/run/leftovers.js';
import { Store } from '../../src/store/store.js';
import { RunPaths } from '../../src/trial/paths.js';
import { mountTable } from '../../src/workspace/layers.js';
import { AGENTS, CLI, EXAMPLES, varTempDir } from '../helpers/cli.js';
import {
  asUnprivileged,
  cleanup,
  isRoot,
  killHard,
  processesWith,
  start,
  unprivilegedDir,
  waitFor,
} from '../helpers/processes.js';
import { noBwrap } from '../sandbox/require-bwrap.js';

const dirs: string[] = [];
const markers: string[] = [];
afterEach(() => {
  for (const m of markers.splice(0)) cleanup(m);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cases = [
  { name: 'bwrap', sandbox: 'bwrap', unprivileged: false, skip: noBwrap },
  { name: 'none, as root (none-as-nobody)', sandbox: 'none', unprivileged: false, skip: !isRoot },
  { name: 'none, as an unprivileged user', sandbox: 'none', unprivileged: true, skip: false },
];

describe('kill -9 of nanobench during a trial', () => {
  for (const c of cases)
    it.skipIf(c.skip)(`leaves no process of the trial behind: ${c.name}`, async () => {
      const marker = `nb-killed-${randomUUID()}`;
      markers.push(marker);
      const dir = c.unprivileged ? unprivilegedDir('nb-killed-') : varTempDir('nb-killed-');
      dirs.push(dir);
      const run = start(
        [
          ...(c.unprivileged ? asUnprivileged() : []),
          process.execPath,
          CLI,
          ...['run', EXAMPLES, '--agent', `command:${join(AGENTS, 'outlive.sh')}`],
          ...['--task', 'textkit-001', '--sandbox', c.sandbox, '--runs', '1'],
          ...['--mirror', join(EXAMPLES, 'mirror'), '--db', join(dir, 'r.sqlite')],
        ],
        {
          env: {
            ...process.env,
            NANOBENCH_TEST_MARK: marker,
            ...(c.unprivileged && { HOME: dir }),
          },
        },
      );
      // The loop of its own, the background one, the detached one.
      const up = await waitFor(() => processesWith(marker).length >= 3, 90_000);
      expect(up, run.output()).toBe(true);
      await killHard(run);
      await waitFor(() => processesWith(marker).length === 0, 5_000);
      expect(processesWith(marker)).toEqual([]);
      // Its workspace overlay (root: auto mounts one) outlives it, until the run is resumed.
      const left = () => mountTable().filter((m) => m.point.startsWith(`${dir}/`));
      expect(left().length).toBe(isRoot && !c.unprivileged ? 1 : 0);
      const db = join(dir, 'r.sqlite');
      const store = Store.open(db);
      const runId = store.listRuns()[0].id;
      store.close();
      await endLeftovers(new RunPaths(db), runId);
      expect(left()).toEqual([]);
    });
});
