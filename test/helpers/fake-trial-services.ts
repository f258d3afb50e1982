// The trial services that touch the machine (workspace, sandbox, git), faked for tests that
// exercise the trial template or the runner without provisioning anything. Each test adds the
// services it is about (verify, audit, ...) and may wrap these.
import { mkdirSync } from 'node:fs';
import type { TrialServices } from '../../src/trial/services.js';
import type { SessionReport } from '../../src/workspace/sandbox/types.js';

export const NO_SANDBOX_REPORT: SessionReport = {
  kind: 'none',
  writesOutside: [],
  containment: 'pid-namespace',
  endpointConnections: 0,
  limits: [],
  readOnly: [],
};

/** A workspace that is an empty directory, no sandbox, and an agent diff touching src/a.js. */
export function fakeWorkspaceServices(
  report: SessionReport = NO_SANDBOX_REPORT,
): Pick<
  TrialServices,
  'provision' | 'withSession' | 'guardWorkspace' | 'workspaceDiff' | 'restoreInfrastructure'
> {
  return {
    provision: async (_c, _t, _s, ws) => {
      mkdirSync(ws, { recursive: true });
      return {
        workspace: ws,
        baselineTree: 'tree0',
        envReused: true,
        snapshotWs: ws,
        sourceClone: ws,
      };
    },
    withSession: async (_d, _o, fn) => ({
      value: await fn({
        kind: 'none',
        tag: 'x',
        wrap: (c, a) => ({ command: c, args: a }),
        close: async () => report,
      }),
      report,
    }),
    guardWorkspace: () => ({ escapingSymlinks: [], specialFiles: [], git: [], nestedGit: [] }),
    workspaceDiff: async () => ({ tree: 'tree1', files: ['src/a.js'], patch: '+x\n' }),
    restoreInfrastructure: () => ({ touchedTests: [], touchedInfra: [], resultFiles: [] }),
  };
}
