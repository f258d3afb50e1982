// `task import` checks its own guesses before it writes the file: the guessed install command
// and suites run once at base (with the PR's tests) and once with the golden patch, through the
// same provisioning and verifier as every gate. Each suite is then "verified" (it reported tests,
// and some test fails at base and passes with the fix) or not, with the reason, so the curator
// knows which guesses to fix before filling in the rest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { derivePatches, type ResolvedTask } from '../task/patches.js';
import { findPlaceholders } from '../task/placeholders.js';
import { TaskSchema } from '../task/schema.js';
import { InfraError, UserError } from '../util/errors.js';
import { applyPatch } from '../util/git.js';
import { type Verification, verify } from '../verify/verifier.js';
import { unmountUnder } from '../workspace/layers.js';
import { ensureSnapshot, materialize } from '../workspace/provision.js';
import { ensureSourceClone } from '../workspace/source.js';
import { computeLists, suiteProblem } from './verification.js';

export interface SuiteCheck {
  suite: string;
  verified: boolean;
  /** What was seen: counts when verified, the problem when not. */
  reason: string;
}

/** The fields only a curator fills, given neutral values so the guesses can run. */
const NEUTRAL: Record<string, unknown> = {
  domain: 'unset',
  complexity_tier: 1,
  reasoning_category: 'unset',
  problem_statement: 'unset',
  task_type: 'other',
  contributor: 'unset',
};

/** An imported task with the curator's fields given neutral values, so its guesses can run. */
export function neutralised(raw: Record<string, unknown>): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...raw };
  for (const [k, v] of Object.entries(NEUTRAL))
    if (findPlaceholders(filled[k]).length) filled[k] = v;
  return filled;
}

function runnableTask(raw: Record<string, unknown>, gitDir: string): ResolvedTask | string {
  const filled = neutralised(raw);
  const left = findPlaceholders(filled).map((p) => p.path);
  if (left.length) return `no guess to run for ${left.join(', ')}`;
  const parsed = TaskSchema.safeParse(filled);
  if (!parsed.success)
    return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  const task = parsed.data;
  if (task.ground_truth_patch !== undefined) return task as ResolvedTask;
  return { ...task, ...derivePatches(gitDir, task, '(import)') };
}

const tailOf = (s: string) => s.trim().split('\n').slice(-3).join(' | ');

function problemOf(v: Verification, suite: string, when: string): string | undefined {
  const s = v.suites.find((x) => x.name === suite);
  if (!s) return `did not run ${when}`;
  return suiteProblem({ ...v, suites: [s] }, when)?.reason;
}

/** Run the guessed suites at base and with the golden patch; one verdict per suite. */
export async function checkImport(
  raw: Record<string, unknown>,
  gitDir: string,
  o: { cacheDir: string; log?: (line: string) => void },
): Promise<SuiteCheck[]> {
  const suites = Array.isArray(raw.test_suites)
    ? (raw.test_suites as { name?: unknown }[]).map((s) => String(s.name))
    : [];
  const all = (verified: boolean, reason: string) =>
    suites.map((suite) => ({ suite, verified, reason }));
  const task = runnableTask(raw, gitDir);
  if (typeof task === 'string') return all(false, task);
  const work = mkdtempSync(join(tmpdir(), 'nanobench-import-check-'));
  try {
    const clone = await ensureSourceClone(
      o.cacheDir,
      task.repo,
      { location: gitDir, kind: 'local' },
      { commits: [task.base_commit] },
    );
    o.log?.(`checking the guesses: preparing the environment at ${task.base_commit.slice(0, 12)}`);
    const snap = await ensureSnapshot(o.cacheDir, task, clone);
    const run = async (name: string, patch?: string): Promise<Verification | string> => {
      const ws = join(work, name, 'ws');
      await materialize(snap, ws);
      if (patch) {
        const r = await applyPatch(ws, patch);
        if (r.exitCode !== 0) return `the golden patch does not apply: ${tailOf(r.stderr)}`;
      }
      o.log?.(
        `checking the guesses: running the suites ${patch ? 'with the golden patch' : 'at base'}`,
      );
      return verify(ws, snap.baselineTree, task, join(work, name, 'scratch'));
    };
    const base = await run('base');
    const golden = await run('golden', task.ground_truth_patch);
    if (typeof base === 'string') return all(false, base);
    if (typeof golden === 'string') return all(false, golden);
    return suites.map((suite) => {
      const problem =
        problemOf(base, suite, 'at base') ?? problemOf(golden, suite, 'with the golden patch');
      if (problem) return { suite, verified: false, reason: problem };
      const only = (v: Verification) =>
        new Map([...v.outcomes].filter(([id]) => id.startsWith(`${suite}::`)));
      const lists = computeLists(only(base), only(golden));
      if (lists.failToPass.length === 0)
        return {
          suite,
          verified: false,
          reason:
            lists.notPassingAtBase === 0
              ? `all ${only(base).size} tests pass at base: none tells the fix from no change`
              : `${lists.stillFailing.length} test(s) fail at base and still fail with the golden patch`,
        };
      return {
        suite,
        verified: true,
        reason: `${lists.failToPass.length} fail_to_pass, ${lists.passToPass.length} pass_to_pass (base ${(base.durationMs / 1000).toFixed(1)}s)`,
      };
    });
  } catch (e) {
    if (e instanceof InfraError || e instanceof UserError) return all(false, e.message);
    throw e;
  } finally {
    unmountUnder(work);
    rmSync(work, { recursive: true, force: true });
  }
}
