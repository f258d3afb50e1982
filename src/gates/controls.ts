// Gate 7, controls: through the real trial pipeline (provision, agent, diff, verify, score), the
// oracle (applies the golden patch) must score 1.0 and nop (changes nothing) 0.0, graded on the
// fail_to_pass / pass_to_pass lists the task file records. A nop that scores means the task
// leaks: the graded tests pass without any change.
import { nopAgent, oracleAgent } from '../agent/controls.js';
import type { Agent, Mode } from '../agent/types.js';
import type { TrialRecord } from '../store/store.js';
import { runTrial } from '../trial/run-trial.js';
import { type Verification, verify } from '../verify/verifier.js';
import { snapshotTree } from '../workspace/provision.js';
import { type GateContext, gateTrialSpec } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

/**
 * The verifier of the control trials, remembering each run by the workspace's tree (its content
 * after the agent and the hardening): the oracle and nop leave the same tree in both modes, and
 * the same suites on the same tree give the same outcomes (the flakiness gate ran before), so the
 * navigation-mode trial takes the hinted one's run instead of running the suites again. Every
 * other phase (provision, agent, guard, diff, hardening, scoring) still runs in each trial.
 */
function rememberingVerify(reused: string[]): typeof verify {
  const runs = new Map<string, Promise<Verification>>();
  return (ws, baselineTree, task, scratch, wrap) => {
    const key = `${snapshotTree(ws)}\n${task.test_suites.map((s) => s.command).join('\n')}`;
    const known = runs.get(key);
    if (known) {
      reused.push(ws);
      return known;
    }
    const fresh = verify(ws, baselineTree, task, scratch, wrap);
    runs.set(key, fresh);
    // A failed run is not remembered: the next trial runs the suites itself.
    fresh.catch(() => runs.delete(key));
    return fresh;
  };
}

async function control(
  ctx: GateContext,
  agent: Agent,
  mode: Mode,
  verifier: typeof verify,
): Promise<TrialRecord> {
  ctx.log(`running the ${agent.name} control trial (${mode})`);
  const rec = await runTrial(
    gateTrialSpec(await ctx.resolved(), agent.name, mode),
    ctx.trialEnv('validate', agent, { services: { verify: verifier } }),
  );
  const ms = rec.details.verifier_ms;
  if (typeof ms === 'number') ctx.verifierMs.push(ms);
  return rec;
}

const MODES: Mode[] = ['hinted', 'navigation'];

const ORACLE_FIX =
  "the graded tests must pass with the golden patch: re-record fail_to_pass / pass_to_pass (nanobench validate --write); if they are current, the golden patch touches a file the verifier restores before grading (a test path, a suite's test_files, or test infrastructure: runner configs, package.json test fields, lockfiles, conftest.py): move that change into test_patch, narrow test_files, or pick a PR that does not need it";
const NOP_FIX =
  "the task leaks: its graded tests pass without a fix. The fix (or part of it) is already at base_commit, or fail_to_pass lists tests that pass there: record the lists the verification gate computes (nanobench validate --write) and check that base_commit is the PR commit's first parent";

const SANDBOX_FIX =
  "the suites pass on this machine (the verification gate) but not in the trials' sandbox, which shows nothing outside the workspace and the toolchain and, under bwrap, has no network: a suite or build step that downloads (npx --yes, a registry) or reads outside the workspace must do that in install_command (it runs with the network, once per environment); see the trial's tests-*.stderr. --sandbox none validates without this check";

/** Where a control trial ran: its sandbox kind (none when it ran unsandboxed). */
const sandboxOf = (r: TrialRecord) => r.details.sandbox?.kind ?? 'none';

/** A control that could not run its suites in a sandbox: the sandbox's fix, not the task's. */
const fixFor = (r: TrialRecord, fix: string) =>
  r.status === 'error' &&
  (r.error_stage === 'verify' || r.error_stage === 'task') &&
  sandboxOf(r) !== 'none'
    ? SANDBOX_FIX
    : fix;

const brief = (r: TrialRecord) => ({
  status: r.status,
  score: r.score,
  label: r.label,
  error: r.error,
});

const summary = (r: TrialRecord) =>
  r.status === 'error' ? `error (${r.error})` : `${r.score.toFixed(1)} (${r.label})`;

/** Graded tests of a trial (fail_to_pass only, or both lists) that did or did not pass. */
function graded(r: TrialRecord, passed: boolean, lists: 'f2p' | 'both'): string[] {
  const d = r.details;
  const tests = [...(d.fail_to_pass ?? []), ...(lists === 'both' ? (d.pass_to_pass ?? []) : [])];
  return [...new Set(tests.filter((t) => t.passed === passed).map((t) => t.id))];
}

export async function controlsGate(ctx: GateContext): Promise<GateOutcome> {
  if (ctx.task.fail_to_pass.length === 0)
    return fail(
      'the task file records no fail_to_pass tests, so no trial can be graded',
      `record them: nanobench validate --write ${ctx.file}`,
    );
  const details: Record<string, unknown> = {};
  const problems: string[] = [];
  const fixes = new Set<string>();
  // Both modes: the prompt differs, and navigation mode adds pathfinding credit, so a leak or a
  // grading gap can show in one mode only.
  const reused: string[] = [];
  const verifier = rememberingVerify(reused);
  let last: TrialRecord | undefined;
  for (const mode of MODES) {
    const before = reused.length;
    const oracle = await control(ctx, oracleAgent, mode, verifier);
    last = oracle;
    const nop = await control(ctx, nopAgent, mode, verifier);
    details[mode] = {
      oracle: brief(oracle),
      nop: brief(nop),
      ...(reused.length > before && { verifier_runs_reused: reused.length - before }),
    };
    if (oracle.status !== 'scored' || oracle.score !== 1) {
      const failing = oracle.status === 'scored' ? graded(oracle, false, 'both') : [];
      problems.push(
        `${mode}: the oracle scored ${summary(oracle)}${failing.length ? `; failing with the golden patch: ${failing.slice(0, 5).join(', ')}` : ''}`,
      );
      fixes.add(fixFor(oracle, ORACLE_FIX));
    }
    if (nop.status !== 'scored' || nop.score !== 0) {
      const leaking = nop.status === 'scored' ? graded(nop, true, 'f2p') : [];
      problems.push(
        `${mode}: nop scored ${summary(nop)}${leaking.length ? `; fail_to_pass tests that pass with no change at all: ${leaking.slice(0, 5).join(', ')}` : ''}`,
      );
      fixes.add(fixFor(nop, NOP_FIX));
    }
  }
  if (problems.length) return fail(problems.join('; '), [...fixes].join('. '), details);
  return pass(
    `oracle scored 1.0 and nop 0.0 through the trial pipeline, in hinted and navigation mode (sandbox: ${last ? sandboxOf(last) : 'none'})`,
    details,
  );
}
