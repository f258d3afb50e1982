// Merging stores: the runs of `--shard I/N` machines (or any runs of one plan) become one run in
// one store. Runs are comparable only when they planned the same trials (agent, models, modes,
// runs, task selection and the content of every task) with the same agent build; anything else
// is refused unless forced, because the merged numbers would mix two experiments.
import { cpSync, existsSync } from 'node:fs';
import type { RunPaths } from '../trial/paths.js';
import { UserError } from '../util/errors.js';
import { newRunId } from './run-id.js';
import { planFacts, type RunRecord, type Store, type TrialRecord } from './store.js';

export interface MergeInput {
  /** Where the run came from (a database path), for messages and provenance. */
  source: string;
  run: RunRecord;
  trials: TrialRecord[];
}

export interface MergeOptions {
  force: boolean;
  /** Copy artifact directories that exist here next to the output (else keep the paths). */
  copyArtifacts: boolean;
}

export interface MergeResult {
  run: RunRecord;
  trials: number;
  /** Problems that --force overrode, or facts worth saying (missing shards). */
  warnings: string[];
  /** The output held this merge already (the same input runs): nothing was written. */
  already?: boolean;
}

const cfg = planFacts;

/** What decides which trials a run plans. Dataset paths are left out: task digests cover them. */
export function planIdentity(run: RunRecord): Record<string, unknown> {
  const c = cfg(run);
  return {
    agent: c.agent,
    models: c.models,
    modes: c.modes,
    runs: c.runs ?? null,
    tasks: c.taskIds ?? null,
    task_digests: c.task_digests ?? null,
  };
}

/** The agent build (e.g. Nanocoder version and commit); install paths differ between machines. */
export function buildIdentity(run: RunRecord): Record<string, unknown> {
  const info = cfg(run).agent_info ?? {};
  return Object.fromEntries(
    Object.entries(info)
      .filter(([k]) => !k.endsWith('_path'))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function differences(inputs: MergeInput[]): string[] {
  const [first, ...rest] = inputs;
  const out: string[] = [];
  for (const other of rest) {
    const pa = planIdentity(first.run);
    const pb = planIdentity(other.run);
    for (const k of Object.keys(pa))
      if (!same(pa[k], pb[k]))
        out.push(
          `different plans: ${k} of ${other.run.id} (${other.source}) differs from ${first.run.id}`,
        );
    // Trials scored by different rules would sit in one run under one label set.
    const rules = (r: RunRecord) => cfg(r).scoring_rules_version ?? null;
    if (rules(first.run) !== rules(other.run))
      out.push(
        `different scoring rules: ${other.run.id} (${other.source}) was scored by rules ${rules(other.run) ?? '(not recorded)'}, ${first.run.id} by ${rules(first.run) ?? '(not recorded)'}`,
      );
    if (!same(buildIdentity(first.run), buildIdentity(other.run)))
      out.push(
        `different agent builds: ${other.run.id} ran ${JSON.stringify(buildIdentity(other.run))}, ${first.run.id} ran ${JSON.stringify(buildIdentity(first.run))}`,
      );
  }
  return out;
}

function shardProblems(inputs: MergeInput[]): { problems: string[]; missing: number[] } {
  const shards = inputs.map((i) => cfg(i.run).shard);
  if (shards.every((s) => s === undefined)) {
    return {
      problems: inputs.length > 1 ? ['the runs are not shards of one plan'] : [],
      missing: [],
    };
  }
  const counts = new Set(shards.map((s) => s?.count));
  if (counts.size > 1 || shards.some((s) => s === undefined))
    return { problems: ['the runs were not split into the same number of shards'], missing: [] };
  const count = shards[0]!.count;
  const seen = shards.map((s) => s!.index);
  const dup = seen.filter((x, i) => seen.indexOf(x) !== i);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.includes(i));
  return { problems: dup.length ? [`shard ${dup[0]}/${count} given twice`] : [], missing };
}

// Canonical order (the plan's coordinates), so a merged store does not depend on which shard
// finished first.
const order = (a: TrialRecord, b: TrialRecord) =>
  a.task_id.localeCompare(b.task_id) ||
  a.provider.localeCompare(b.provider) ||
  a.model.localeCompare(b.model) ||
  a.mode.localeCompare(b.mode) ||
  a.attempt - b.attempt ||
  a.trial_key.localeCompare(b.trial_key);

/**
 * A run of `out` already merged from these inputs: merging again would store every trial twice.
 * The same inputs give that run back (merge is idempotent); a run merged from some of them is
 * refused, naming it.
 */
function mergedBefore(out: Store, inputs: MergeInput[]): RunRecord | undefined {
  const ids = new Set(inputs.map((i) => i.run.id));
  for (const run of out.listRuns()) {
    const from = cfg(run).merged_from;
    if (!Array.isArray(from)) continue;
    const merged = new Set(from.map((m) => m.run_id));
    const shared = [...ids].filter((id) => merged.has(id));
    if (shared.length === 0) continue;
    if (shared.length === ids.size && merged.size === ids.size) return run;
    throw new UserError(
      'MERGE_REFUSED',
      `merge refused: run ${shared[0]} is already in run ${run.id} of ${out.path}, merged from ${[...merged].join(', ')}; merge into a new output file, or finish that run with "nanobench run --resume --db ${out.path}"`,
    );
  }
  return undefined;
}

export function mergeRuns(
  out: Store,
  outPaths: RunPaths,
  inputs: MergeInput[],
  opts: MergeOptions,
): MergeResult {
  if (inputs.length === 0) throw new UserError('NOTHING_TO_MERGE', 'merge: no runs to merge');
  const earlier = mergedBefore(out, inputs);
  if (earlier)
    return {
      run: earlier,
      trials: out.trialKeys(earlier.id).size,
      warnings: [],
      already: true,
    };
  const shard = shardProblems(inputs);
  const problems = [...differences(inputs), ...shard.problems];
  const keys = new Map<string, string>();
  for (const i of inputs)
    for (const t of i.trials) {
      const prev = keys.get(t.trial_key);
      if (prev && prev !== i.run.id)
        problems.push(`trial ${t.trial_key} is in both ${prev} and ${i.run.id}`);
      keys.set(t.trial_key, i.run.id);
    }
  if (problems.length && !opts.force)
    throw new UserError(
      'MERGE_REFUSED',
      `merge refused:\n  ${[...new Set(problems)].slice(0, 10).join('\n  ')}\n(use --force to merge anyway)`,
    );
  const warnings = [...new Set(problems)];
  const count = cfg(inputs[0].run).shard?.count;
  if (shard.missing.length)
    warnings.push(
      `shards ${shard.missing.map((i) => `${i}/${count}`).join(', ')} missing: the merged run is unfinished (finish it with "nanobench run --resume")`,
    );

  const id = newRunId();
  // The first run's configuration, copied whole but for what only a shard or a queue had.
  const { shard: _s, full_plan_size: _f, queue: _q, ...config } = inputs[0].run.config;
  const full = cfg(inputs[0].run).full_plan_size;
  const complete = !shard.missing.length && inputs.every((i) => i.run.status === 'finished');
  const run: RunRecord = {
    id,
    created_at: inputs.map((i) => i.run.created_at).sort()[0],
    finished_at: complete
      ? (inputs
          .map((i) => i.run.finished_at ?? '')
          .sort()
          .at(-1) ?? null)
      : null,
    status: complete ? 'finished' : 'interrupted',
    config: {
      ...config,
      merged_from: inputs.map((i) => ({
        source: i.source,
        run_id: i.run.id,
        shard: cfg(i.run).shard ?? null,
        status: i.run.status,
      })),
    },
    plan_size: typeof full === 'number' ? full : inputs.reduce((n, i) => n + i.run.plan_size, 0),
  };

  const seen = new Set<string>();
  const trials: TrialRecord[] = [];
  for (const t of inputs.flatMap((i) => i.trials).sort(order)) {
    if (seen.has(t.trial_key)) continue; // --force: the first copy wins
    seen.add(t.trial_key);
    let dir = t.artifacts_dir;
    if (opts.copyArtifacts && dir && existsSync(dir)) {
      const to = outPaths.artifacts(id, t.trial_key);
      cpSync(dir, to, { recursive: true });
      dir = to;
    }
    trials.push({ ...t, run_id: id, artifacts_dir: dir });
  }
  // One transaction: a merge is all there or not there.
  out.transaction(() => {
    out.createRun(run);
    for (const t of trials) out.insertTrial(t);
  });
  return { run, trials: trials.length, warnings };
}
