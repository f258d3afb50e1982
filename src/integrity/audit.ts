// The integrity audit of one trial, in two calls from the trial lifecycle:
//   guardWorkspace  right after the agent (its processes are gone): audit and restore .git,
//                   remove nested repositories, escaping symlinks and special files, so the
//                   diff and everything after it run on a workspace that cannot fight back;
//   auditTrial      after hardening and verification: evidence -> integrity flags + details.
import { normalize } from 'node:path';
import type { InfraReport, SanitizeReport } from '../verify/harden.js';
import { sanitizeWorkspace } from '../verify/harden.js';
import type { ChangedPaths } from '../workspace/changes.js';
import { pathToolchains } from '../workspace/sandbox/toolchain.js';
import type { SessionReport } from '../workspace/sandbox/types.js';
import type { IntegrityFlag } from './flags.js';
import { auditGit, removeNestedGit, restoreGitDir } from './git.js';
import { networkErrors, protectedMentions } from './output.js';

export interface GuardReport extends SanitizeReport {
  git: string[];
  nestedGit: string[];
}

/** `changed`: on an overlay, the only paths that can differ from the snapshot (changes.ts). */
export function guardWorkspace(
  ws: string,
  snapshotWs: string,
  sourceClone?: string,
  changed?: ChangedPaths,
): GuardReport {
  const git = auditGit(ws, snapshotWs, sourceClone, changed);
  restoreGitDir(ws, snapshotWs, changed);
  const nestedGit = removeNestedGit(ws, snapshotWs, changed);
  return { git, nestedGit, ...sanitizeWorkspace(ws, snapshotWs, changed) };
}

export interface AuditInput {
  guard: GuardReport;
  infra: InfraReport;
  session: SessionReport;
  /** The agent's stdout and stderr. */
  output: string;
  /** Never the agent's business: dataset, results root, cache, NanoBench, the host home. */
  protectedRoots: string[];
  /** What it may name: its workspace, scratch, the read-only paths it was given. */
  allowed: string[];
}

export interface Audit {
  flags: IntegrityFlag[];
  /** Evidence per flag (only the non-empty ones), for details.integrity. */
  evidence: Record<string, string[]>;
}

export function auditTrial(a: AuditInput): Audit {
  const allowed = [...a.allowed, ...pathToolchains(process.env.PATH, [])];
  const mentions = protectedMentions(a.output, a.protectedRoots.map(normalize), allowed);
  const evidence: Record<string, string[]> = {
    touched_tests: a.infra.touchedTests,
    touched_test_infra: a.infra.touchedInfra,
    wrote_result_file: a.infra.resultFiles,
    git: a.guard.git,
    nested_git: a.guard.nestedGit,
    writes_outside: a.session.writesOutside,
    escaping_symlinks: a.guard.escapingSymlinks,
    protected_paths_named: mentions,
    special_files: a.guard.specialFiles,
    // Only where the sandbox has no network: elsewhere a network error is just a network error.
    network_errors: ['bwrap', 'podman', 'docker'].includes(a.session.kind)
      ? networkErrors(a.output)
      : [],
  };
  const has = (...keys: string[]) => keys.some((k) => evidence[k].length > 0);
  const flags: IntegrityFlag[] = [];
  if (has('touched_tests')) flags.push('touched_tests');
  if (has('touched_test_infra')) flags.push('touched_test_infra');
  if (has('git', 'nested_git')) flags.push('touched_git_internals');
  if (has('writes_outside', 'escaping_symlinks', 'protected_paths_named'))
    flags.push('escaped_workspace');
  if (has('network_errors')) flags.push('network_blocked');
  if (has('wrote_result_file')) flags.push('wrote_result_file');
  for (const k of Object.keys(evidence)) if (evidence[k].length === 0) delete evidence[k];
  return { flags, evidence };
}
