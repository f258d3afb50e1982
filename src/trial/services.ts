// What a trial's stages call, passed in so the lifecycle can be tested without git, sandboxes or
// test runners (test/run/trial-lifecycle.test.ts replaces them with fakes).
import { spawnSync } from 'node:child_process';
import type { Agent } from '../agent/types.js';
import { auditTrial, guardWorkspace } from '../integrity/audit.js';
import { score } from '../score/rules.js';
import { GIT_ENV } from '../util/git.js';
import { restoreInfrastructure } from '../verify/harden.js';
import { verify } from '../verify/verifier.js';
import { workspaceDiff } from '../workspace/diff.js';
import { provision } from '../workspace/provision.js';
import { withSession } from '../workspace/sandbox/session.js';

export interface TrialServices {
  provision: typeof provision;
  withSession: typeof withSession;
  guardWorkspace: typeof guardWorkspace;
  workspaceDiff: typeof workspaceDiff;
  restoreInfrastructure: typeof restoreInfrastructure;
  verify: typeof verify;
  score: typeof score;
  auditTrial: typeof auditTrial;
  /** Does `sym` occur in the repository at `base` (Level-4 symbol lookup)? */
  symbolAtBase: (ws: string, base: string) => (sym: string) => boolean;
  /** The agent of a task's golden control (src/trial/pr/task-control.ts); default the oracle. */
  goldenAgent?: Agent;
}

function gitSymbolAtBase(ws: string, base: string) {
  const cache = new Map<string, boolean>();
  return (sym: string): boolean => {
    if (!cache.has(sym)) {
      const r = spawnSync('git', ['grep', '-q', '-w', '-F', '-e', sym, base], {
        cwd: ws,
        env: GIT_ENV,
      });
      cache.set(sym, r.status === 0);
    }
    return cache.get(sym)!;
  };
}

export const DEFAULT_SERVICES: TrialServices = {
  provision,
  withSession,
  guardWorkspace,
  workspaceDiff,
  restoreInfrastructure,
  verify,
  score,
  auditTrial,
  symbolAtBase: gitSymbolAtBase,
};
