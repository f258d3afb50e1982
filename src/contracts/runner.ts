// `nanobench contracts`: run every contract case of a task through its evaluator and say, per
// criterion, whether the grader draws the line where the cases say it should. Each case is a
// trial of the trial core (trial-evaluator.ts: the candidate applied as the agent's change, then
// the guard, diff, hardening, verification and grade every run's trials go through), so a
// contract judges the grader runs use. Its content is first made once in a workspace of its own
// (the cached environment at base_commit) for its digest: a duplicate is refused ungraded.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GateContext } from '../gates/context.js';
import { expandTargets } from '../gates/runner.js';
import { type CriteriaVector, type TestCriterion, taskCriteria } from '../score/criteria.js';
import { type LoadedTask, loadTaskFile } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { PASS_TO_PASS_CRITERION } from '../task/schema.js';
import { InfraError, UserError } from '../util/errors.js';
import { applyPatch } from '../util/git.js';
import { unmountUnder } from '../workspace/layers.js';
import { materialize, type Snapshot, snapshotTree } from '../workspace/provision.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import {
  type Candidate,
  type ContractCase,
  contractsDir,
  loadCases,
  type Metamorphic,
} from './cases.js';
import { type Evaluation, writeEvaluation } from './evaluator.js';
import { type ApplyCandidate, trialEvaluator } from './trial-evaluator.js';

export interface ContractOptions {
  cacheDir: string;
  mirrorDir?: string;
  /** Only these task ids. */
  taskIds?: string[];
  /** Write each case's evaluation to DIR/<task_id>/<case_id>.json. */
  resultsDir?: string;
  /** A container sandbox (--sandbox podman|docker): cases run in the task's environment image. */
  sandbox?: SandboxDriver;
  log?: (line: string) => void;
}

export type FindingKind =
  | 'no_cases'
  | 'invalid_case'
  | 'infra'
  | 'reference_rejected'
  | 'met_without_change'
  | 'base_regresses'
  | 'overfitted'
  | 'lenient'
  | 'undocumented_coupling'
  | 'coupling_not_observed'
  | 'metamorphic'
  | 'duplicate'
  | 'not_an_alternative'
  | 'too_few_alternatives'
  | 'no_rejecting_case';

export interface Finding {
  kind: FindingKind;
  case?: string;
  criterion?: string;
  message: string;
  fix: string;
}

export interface VariantRun {
  id: string;
  relation: string;
  digest: string | null;
  evaluation: Evaluation | null;
}

export interface CaseRun {
  case_id: string;
  /** Built-in cases: the golden patch (reference) and no change (base). */
  outcome: 'accept' | 'reject' | 'reference' | 'base';
  criterion?: string;
  /** The git tree of the repository with the candidate applied: same content, same digest. */
  digest: string | null;
  expected: CriteriaVector;
  /** null when the case was not graded (refused duplicate, candidate that does not apply). */
  evaluation: Evaluation | null;
  metamorphic: VariantRun[];
  ok: boolean;
}

export interface TaskContracts {
  task_id: string | null;
  file: string;
  /** held: every case as expected; no_cases: nothing to run; skipped: retired. */
  status: 'held' | 'misbehaved' | 'no_cases' | 'error' | 'skipped';
  criteria: { id: string; description: string; tests: number; source: string }[];
  cases: CaseRun[];
  findings: Finding[];
  /** Accepting cases that differ from the reference and from each other. */
  alternatives: number;
}

/** At least this many accepting cases that differ from the reference. */
export const MIN_ALTERNATIVES = 2;

const short = (digest: string | null) => (digest ? digest.slice(0, 10) : '-');
const list = (xs: string[], n = 3) =>
  `${xs.slice(0, n).join(', ')}${xs.length > n ? `, … (${xs.length})` : ''}`;

/** A candidate problem (does not apply, names a missing file): the case's fault, not the grader's. */
class CaseProblem extends Error {}

async function gitApply(ws: string, patch: string, what: string): Promise<void> {
  const r = await applyPatch(ws, patch);
  if (r.exitCode !== 0)
    throw new CaseProblem(
      `${what} does not apply at base_commit: ${r.stderr.trim().split('\n')[0]}; regenerate it against base_commit (git diff in a checkout of it)`,
    );
}

async function applyCandidate(ws: string, c: Candidate): Promise<void> {
  if (c.kind === 'patch') return gitApply(ws, readFileSync(c.file, 'utf8'), c.file);
  cpSync(c.dir, ws, { recursive: true });
  for (const p of c.delete) {
    if (!existsSync(join(ws, p)))
      throw new CaseProblem(
        `${c.dir}/../case.json: field "delete": ${p} does not exist at base_commit`,
      );
    rmSync(join(ws, p), { recursive: true, force: true });
  }
}

const ident = (name: string) =>
  new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g');

async function applyVariant(ws: string, m: Metamorphic, caseFile: string): Promise<void> {
  if (m.patch) return gitApply(ws, readFileSync(m.patch, 'utf8'), m.patch);
  const { file, from, to } = m.rename!;
  const path = join(ws, file);
  const at = `${caseFile}: metamorphic ${m.id}`;
  if (!existsSync(path)) throw new CaseProblem(`${at}: ${file} does not exist in the candidate`);
  const text = readFileSync(path, 'utf8');
  // A rename into a name already used would merge two variables: not a pure rename.
  if ((text.match(ident(from)) ?? []).length === 0)
    throw new CaseProblem(`${at}: "${from}" does not occur in ${file}; name an identifier it uses`);
  if ((text.match(ident(to)) ?? []).length > 0)
    throw new CaseProblem(`${at}: "${to}" already occurs in ${file}; rename to an unused name`);
  writeFileSync(path, text.replace(ident(from), to));
}

/** A case's workspace (an overlay where materialize could mount one) unmounted and removed. */
function discardWorkspace(p: { ws: string }): void {
  unmountUnder(join(p.ws, '..'));
  rmSync(join(p.ws, '..'), { recursive: true, force: true });
}

class TaskRun {
  readonly findings: Finding[] = [];
  readonly runs: CaseRun[] = [];
  private readonly byDigest = new Map<string, string>();
  private n = 0;

  constructor(
    readonly lt: LoadedTask,
    readonly ctx: GateContext,
    readonly criteria: TestCriterion[],
    readonly snapshot: Snapshot,
    /** Grades a candidate through the trial core (trial-evaluator.ts). */
    readonly evaluate: (apply: ApplyCandidate) => Promise<Evaluation>,
    readonly opts: ContractOptions,
  ) {}

  finding(f: Finding): void {
    this.findings.push(f);
  }

  /**
   * The candidate's content as a git tree, from a workspace of its own (discarded at once): the
   * same content gives the same digest, so duplicates are refused before anything is graded.
   */
  private async digestOf(apply: ApplyCandidate): Promise<string> {
    const ws = join(this.ctx.dir(`case-${++this.n}`), 'ws');
    try {
      await materialize(this.snapshot, ws);
      await apply(ws);
      return snapshotTree(ws);
    } finally {
      discardWorkspace({ ws });
    }
  }

  private async grade(apply: ApplyCandidate, caseId: string, digest: string): Promise<Evaluation> {
    const e = await this.evaluate(apply);
    if (this.opts.resultsDir && this.lt.task.task_id)
      writeEvaluation(join(this.opts.resultsDir, this.lt.task.task_id, `${caseId}.json`), {
        task_id: this.lt.task.task_id,
        case_id: caseId,
        digest,
        ...e,
      });
    return e;
  }

  private infraFinding(caseId: string, e: Evaluation & { status: 'infra' }): void {
    this.finding({
      kind: 'infra',
      case: caseId,
      message: `the evaluator failed on ${caseId} (${e.stage}/${e.code}: ${e.message}): an infrastructure failure, not a verdict`,
      fix: 'fix what the message names (a runner that cannot start, a test_patch that does not apply, a missing tool), then run the contracts again',
    });
  }

  /** The golden patch must meet every criterion; it also gives the reference digest. */
  async reference(task: ResolvedTask): Promise<void> {
    const apply = (ws: string) => gitApply(ws, task.ground_truth_patch, 'the golden patch');
    const digest = await this.digestOf(apply);
    this.byDigest.set(digest, 'reference');
    const e = await this.grade(apply, 'reference', digest);
    const expected = Object.fromEntries(this.criteria.map((c) => [c.id, true]));
    let ok = e.status === 'graded';
    if (e.status === 'infra') this.infraFinding('reference', e);
    else
      for (const c of this.criteria)
        if (!e.vector[c.id]) {
          ok = false;
          this.finding({
            kind: 'reference_rejected',
            case: 'reference',
            criterion: c.id,
            message: `criterion ${c.id} rejects the reference solution (failing: ${list(e.failing[c.id] ?? [])})`,
            fix: "the criterion's tests must pass with the golden patch: re-record fail_to_pass / pass_to_pass (nanobench validate --write), or correct the tests the criterion names",
          });
        }
    this.runs.push({
      case_id: 'reference',
      outcome: 'reference',
      digest,
      expected,
      evaluation: e,
      metamorphic: [],
      ok,
    });
  }

  /** No change at all: no fix criterion may be met, and nothing that passed may break. */
  async base(): Promise<void> {
    const apply = async () => {};
    const digest = await this.digestOf(apply);
    this.byDigest.set(digest, 'base');
    const e = await this.grade(apply, 'base', digest);
    const expected = Object.fromEntries(
      this.criteria.map((c) => [c.id, c.id === PASS_TO_PASS_CRITERION]),
    );
    let ok = e.status === 'graded';
    if (e.status === 'infra') this.infraFinding('base', e);
    else
      for (const c of this.criteria) {
        if (e.vector[c.id] === expected[c.id]) continue;
        ok = false;
        if (c.id === PASS_TO_PASS_CRITERION)
          this.finding({
            kind: 'base_regresses',
            case: 'base',
            criterion: c.id,
            message: `criterion ${c.id} fails with no change at all (failing: ${list(e.failing[c.id] ?? [])})`,
            fix: 'those tests do not pass at base_commit: a test is flaky or the lists are stale; re-record them (nanobench validate --write) and check the flakiness gate',
          });
        else
          this.finding({
            kind: 'met_without_change',
            case: 'base',
            criterion: c.id,
            message: `criterion ${c.id} is met with no change at all: it cannot tell a fix from nothing`,
            fix: 'its tests pass at base_commit: re-record fail_to_pass (nanobench validate --write), or add a test to test_patch that fails without the fix',
          });
      }
    this.runs.push({
      case_id: 'base',
      outcome: 'base',
      digest,
      expected,
      evaluation: e,
      metamorphic: [],
      ok,
    });
  }

  async run(c: ContractCase): Promise<void> {
    const record = (digest: string | null, evaluation: Evaluation | null, ok: boolean) => {
      const r: CaseRun = {
        case_id: c.id,
        outcome: c.outcome,
        ...(c.criterion && { criterion: c.criterion }),
        digest,
        expected: c.expected,
        evaluation,
        metamorphic: [],
        ok,
      };
      this.runs.push(r);
      return r;
    };
    const apply = (ws: string) => applyCandidate(ws, c.candidate);
    let digest: string;
    try {
      digest = await this.digestOf(apply);
    } catch (e) {
      if (!(e instanceof CaseProblem)) throw e;
      this.finding({
        kind: 'invalid_case',
        case: c.id,
        message: e.message,
        fix: 'correct the case',
      });
      return void record(null, null, false);
    }
    const same = this.byDigest.get(digest);
    if (same === 'reference' && c.outcome === 'accept')
      this.finding({
        kind: 'not_an_alternative',
        case: c.id,
        message: `${c.id} is the reference solution itself (same content, tree ${short(digest)}): it says nothing about other solutions`,
        fix: 'an accepting case solves the task differently from the golden patch (another algorithm, another structure); change it or remove it',
      });
    else if (same !== undefined && !c.duplicateReason) {
      this.finding({
        kind: 'duplicate',
        case: c.id,
        message: `${c.id} has the same candidate as ${same} (tree ${short(digest)}); refused: one candidate is one piece of evidence`,
        fix: `give ${c.id} a candidate of its own, or say why it repeats ${same} in duplicate_candidate_reason`,
      });
      return void record(digest, null, false);
    }
    if (same === undefined) this.byDigest.set(digest, c.id);
    const e = await this.grade(apply, c.id, digest);
    const r = record(digest, e, e.status === 'graded');
    if (e.status === 'infra') return this.infraFinding(c.id, e);
    for (const k of this.criteria) {
      const want = c.expected[k.id];
      const got = e.vector[k.id];
      if (want === got) continue;
      r.ok = false;
      this.finding(this.mismatch(c, k.id, want, e.failing[k.id] ?? []));
    }
    for (const m of c.metamorphic) await this.variant(c, m, digest, e.vector, r);
  }

  private mismatch(c: ContractCase, k: string, want: boolean, failing: string[]): Finding {
    const base = { case: c.id, criterion: k };
    if (want && c.outcome === 'accept')
      return {
        ...base,
        kind: 'overfitted',
        message: `criterion ${k} rejected the valid alternative ${c.id} (${c.description}; failing: ${list(failing)}): the grader accepts only what looks like the reference`,
        fix: `make the tests of ${k} check the behaviour the problem statement asks for, not names, code shape or details it leaves open; if ${c.id} is in fact wrong, make it a rejecting case`,
      };
    if (want)
      return {
        ...base,
        kind: 'undocumented_coupling',
        message: `${c.id} (rejecting on ${c.criterion}) also fails ${k} (failing: ${list(failing)}), which the case expects to hold`,
        fix: `if ${c.id} necessarily fails ${k} too, expect it false and say why in coupled_failures.${k}; otherwise narrow ${c.id} so it violates ${c.criterion} only`,
      };
    if (k === c.criterion)
      return {
        ...base,
        kind: 'lenient',
        message: `criterion ${k} accepted ${c.id}, which violates it (${c.description})`,
        fix: `the tests of ${k} miss this violation: add a test to test_patch that fails on it (and list it in the criterion), or correct the case`,
      };
    return {
      ...base,
      kind: 'coupling_not_observed',
      message: `${c.id} was documented to fail ${k} too ("${c.coupled[k] ?? ''}"), but ${k} was met`,
      fix: `expect ${k} true and remove it from coupled_failures, or find out why the tests of ${k} accept ${c.id}`,
    };
  }

  private async variant(
    c: ContractCase,
    m: Metamorphic,
    caseDigest: string,
    caseVector: CriteriaVector,
    r: CaseRun,
  ): Promise<void> {
    const v: VariantRun = { id: m.id, relation: m.relation, digest: null, evaluation: null };
    r.metamorphic.push(v);
    const apply = async (ws: string) => {
      await applyCandidate(ws, c.candidate);
      await applyVariant(ws, m, c.file);
    };
    let digest: string;
    try {
      digest = await this.digestOf(apply);
    } catch (e) {
      if (!(e instanceof CaseProblem)) throw e;
      r.ok = false;
      return this.finding({
        kind: 'invalid_case',
        case: c.id,
        message: e.message,
        fix: 'correct the variant',
      });
    }
    v.digest = digest;
    if (digest === caseDigest) {
      r.ok = false;
      return this.finding({
        kind: 'invalid_case',
        case: c.id,
        message: `metamorphic ${m.id} of ${c.id} changes nothing (same tree ${short(digest)})`,
        fix: 'a variant must change the candidate in the way its relation says',
      });
    }
    const e = await this.grade(apply, `${c.id}~${m.id}`, digest);
    v.evaluation = e;
    if (e.status === 'infra') {
      r.ok = false;
      return this.infraFinding(`${c.id}~${m.id}`, e);
    }
    const changed = this.criteria.filter((k) => e.vector[k.id] !== caseVector[k.id]);
    if (changed.length === 0) return;
    r.ok = false;
    const tf = (b: boolean | undefined) => (b ? 'T' : 'F');
    for (const k of changed)
      this.finding({
        kind: 'metamorphic',
        case: c.id,
        criterion: k.id,
        message: `${m.relation} (${c.id}~${m.id}) changed the verdict of ${k.id}: ${tf(caseVector[k.id])} -> ${tf(e.vector[k.id])}${e.failing[k.id] ? ` (failing: ${list(e.failing[k.id])})` : ''}`,
        fix: `the tests of ${k.id} depend on something the task leaves open (${m.relation}): make them judge behaviour only`,
      });
  }

  /** Two alternatives that differ from the reference, and a targeted rejection per criterion. */
  coverage(cases: ContractCase[]): number {
    const reference = this.runs.find((r) => r.case_id === 'reference')?.digest;
    const alternatives = new Set(
      this.runs
        .filter((r) => r.outcome === 'accept' && r.evaluation && r.digest !== reference)
        .map((r) => r.digest),
    ).size;
    if (alternatives < MIN_ALTERNATIVES)
      this.finding({
        kind: 'too_few_alternatives',
        message: `${alternatives} accepting case(s) that differ from the reference; at least ${MIN_ALTERNATIVES}`,
        fix: 'add accepting cases that solve the task differently from the golden patch (another algorithm or structure), so a grader that accepts only the golden patch is caught',
      });
    for (const k of this.criteria)
      if (!cases.some((c) => c.outcome === 'reject' && c.criterion === k.id))
        this.finding({
          kind: 'no_rejecting_case',
          criterion: k.id,
          message: `no rejecting case targets criterion ${k.id} (${k.description})`,
          fix: `add a case that violates ${k.id} only (a plausible-looking wrong solution), expecting ${k.id} false and every other criterion true`,
        });
    return alternatives;
  }
}

function describeCriteria(criteria: TestCriterion[]): TaskContracts['criteria'] {
  return criteria.map((c) => ({
    id: c.id,
    description: c.description,
    tests: c.tests.length,
    source: c.source,
  }));
}

/** What a task without cases needs, named per criterion. */
function noCasesFinding(lt: LoadedTask, criteria: TestCriterion[]): Finding {
  return {
    kind: 'no_cases',
    message: `no contract cases (${contractsDir(lt.datasetDir, lt.task.task_id)}/ does not exist or is empty)`,
    fix: `write at least ${MIN_ALTERNATIVES} accepting cases that differ from the reference and one rejecting case per criterion (${criteria.map((c) => c.id).join(', ')}); see docs/CONTRIBUTING-TASKS.md, "Contract cases"`,
  };
}

export async function runTaskContracts(
  lt: LoadedTask,
  opts: ContractOptions,
  workDir: string,
): Promise<TaskContracts> {
  const out: TaskContracts = {
    task_id: lt.task.task_id,
    file: lt.file,
    status: 'held',
    criteria: [],
    cases: [],
    findings: [],
    alternatives: 0,
  };
  if (lt.task.status.state === 'retired') return { ...out, status: 'skipped' };
  let criteria: TestCriterion[];
  try {
    criteria = taskCriteria(lt.task, lt.file);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    out.findings.push({ kind: 'invalid_case', message: e.message, fix: 'correct the criteria' });
    return { ...out, status: 'error' };
  }
  out.criteria = describeCriteria(criteria);
  const loaded = loadCases(lt.datasetDir, lt.task.task_id, criteria);
  for (const problem of loaded.problems)
    out.findings.push({ kind: 'invalid_case', message: problem, fix: 'correct the case file' });
  if (loaded.cases.length === 0) {
    if (!loaded.problems.length) out.findings.push(noCasesFinding(lt, criteria));
    return { ...out, status: loaded.problems.length ? 'misbehaved' : 'no_cases' };
  }
  const log = (line: string) => opts.log?.(`${lt.task.task_id}: ${line}`);
  const ctx = new GateContext(lt.file, lt.datasetDir, undefined, {
    cacheDir: opts.cacheDir,
    workDir,
    mirrorDir: opts.mirrorDir,
    write: false,
    sandbox: opts.sandbox,
  });
  ctx.loaded = lt;
  let run: TaskRun;
  let task: ResolvedTask;
  try {
    task = (await ctx.resolved()).task;
    const snapshot = await ctx.snapshot();
    const evaluate = trialEvaluator(await ctx.resolved(), criteria, (agent) =>
      ctx.trialEnv('contracts', agent),
    );
    run = new TaskRun(lt, ctx, criteria, snapshot, evaluate, opts);
  } catch (e) {
    if (!(e instanceof InfraError) && !(e instanceof UserError)) throw e;
    out.findings.push({
      kind: 'infra',
      message: `the task's environment could not be prepared: ${e.message}`,
      fix: 'run "nanobench validate" on the task and fix what its reproducible gate says',
    });
    return { ...out, status: 'error' };
  }
  log('grading the reference and base');
  await run.reference(task);
  await run.base();
  for (const c of loaded.cases) {
    log(`case ${c.id}`);
    await run.run(c);
  }
  out.alternatives = run.coverage(loaded.cases);
  out.cases = run.runs;
  out.findings.push(...run.findings);
  out.status = out.findings.length ? 'misbehaved' : 'held';
  return out;
}

/** Contracts of every task the targets name (datasets or task files), one task at a time. */
export async function runContracts(
  targets: string[],
  opts: ContractOptions,
  onTask?: (t: TaskContracts) => void,
): Promise<TaskContracts[]> {
  const files = expandTargets(targets);
  const workDir = mkdtempSync(join(tmpdir(), 'nanobench-contracts-'));
  try {
    const tasks = files.map((f) => loadTaskFile(f.file, f.datasetDir));
    if (opts.taskIds?.length) {
      const unknown = opts.taskIds.filter((id) => !tasks.some((t) => t.task.task_id === id));
      if (unknown.length)
        throw new UserError(
          'UNKNOWN_TASK',
          `--task: no task named ${unknown.join(', ')} in ${targets.join(', ')}`,
        );
    }
    const out: TaskContracts[] = [];
    for (const lt of tasks) {
      if (opts.taskIds?.length && !opts.taskIds.includes(lt.task.task_id)) continue;
      const r = await runTaskContracts(lt, opts, workDir);
      onTask?.(r);
      out.push(r);
    }
    return out;
  } finally {
    unmountUnder(workDir);
    rmSync(workDir, { recursive: true, force: true });
  }
}
