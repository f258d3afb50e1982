// The report of one stored run, as data. Every output format (markdown, HTML, JSON) renders this
// one object, so the formats cannot disagree about a number.
import { type AuditSummary, applyAudit } from '../audit/policy.js';
import { type RunSaturation, saturatedInRun } from '../calibration/calibration.js';
import { type Cutoffs, cutoffFor } from '../config/cutoffs.js';
import { type IntegritySummary, integritySummary } from '../integrity/report.js';
import { readRunConfig } from '../run/stored-config.js';
import {
  getOrInit,
  joinKey,
  type Rate,
  rateOf,
  splitKey,
  type TrialOutcome,
  tallyBy,
} from '../stats/aggregate.js';
import { type SamplingPolicy, samplingPolicy } from '../stats/sampling.js';
import { type TaskWeightedRate, taskResults, taskWeightedRate } from '../stats/tasks.js';
import { type UsageTotals, usageTotals } from '../stats/usage.js';
import type { RunRecord } from '../store/store.js';
import type { EvidenceStatus } from '../task/evidence.js';
import type { TrialDetails } from '../trial/details.js';
import type { Stage } from '../trial/stages.js';
import { type Breakdown, breakdowns } from './breakdown.js';
import { type HarnessDelta, harnessDeltas } from './harness.js';
import { type MatrixCell, naturalCompare, providerMatrix } from './matrix.js';
import { type NavigationDelta, navigationDeltas } from './navigation.js';
import { type PhaseSummary, phaseSummary } from './phases.js';
import { type Reading, readingSummary, type TrialReading } from './reading.js';
import type { ResolvedTaskMeta, TaskMetaMap } from './task-meta.js';
import { harborNote, type Taxonomy, taxonomy } from './taxonomy.js';

/**
 * What a report reads from a stored trial: its outcome, scored or an infra error with its message
 * and (for errors stored since stages existed) where and what failed; and these.
 */
export type ReportTrial = ReportOutcome & TrialReading & ReportFields;

type ReportOutcome =
  | (Extract<TrialOutcome, { status: 'scored' }> & {
      error: null;
      error_stage?: null;
      error_code?: null;
    })
  | (Extract<TrialOutcome, { status: 'error' }> & {
      error: string;
      error_stage?: Stage | null;
      error_code?: string | null;
    });

interface ReportFields {
  /** Proxy telemetry, flattened by Store.trialOutcomes; full records carry it in details.proxy. */
  tokens_in?: number | null;
  tokens_out?: number | null;
  cost_usd?: number | null;
  /** Flattened by Store.trialOutcomes too (details.phase_ms, details.provision.mode). */
  phase_ms?: Record<string, number> | null;
  provision_mode?: string | null;
  details?: TrialDetails;
}

// The proxy's counts are read in one place, src/stats/usage.ts.
export { type UsageTotals, usageTotals } from '../stats/usage.js';

export interface ModelRow {
  /** The agent, when the trials name it (a run of several agents has a row per agent). */
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  /** The headline rate: each task once (its mean over runs), with the interval over tasks. */
  tasks: TaskWeightedRate;
  /** The trials pooled (k/n, Wilson), with the infra errors beside them. */
  rate: Rate;
  usage: UsageTotals;
}

export interface ContaminationModel {
  provider: string;
  model: string;
  cutoff: string | null;
  cells: number;
  pre_cutoff_cells: number;
}

export interface Report {
  run: {
    id: string;
    status: RunRecord['status'];
    created_at: string;
    finished_at: string | null;
    plan_size: number;
    trials: number;
    agent: string;
    datasets: string[];
    agent_info: Record<string, unknown>;
  };
  sampling: SamplingPolicy & { undersampled_cells: number };
  /** The Level-4 audit the labels follow (agreement, sample size); null when none is recorded. */
  audit: AuditSummary | null;
  task_meta: { source: ResolvedTaskMeta['source']; tasks: number; note: string | null };
  overall: Rate;
  models: ModelRow[];
  navigation_delta: NavigationDelta[];
  /** What the harness adds to each model over the bare agent; empty unless both ran (src/report/harness.ts). */
  harness_delta: HarnessDelta[];
  taxonomy: Taxonomy;
  /** Files read per model, and what the insufficient_context_read trials read. */
  reading: Reading;
  breakdowns: Breakdown[];
  matrix: MatrixCell[];
  contamination: {
    cutoffs_file: string | null;
    pre_cutoff_cells: number;
    models: ContaminationModel[];
  };
  /**
   * Infra errors grouped by cause (most frequent first); never inside any rate. The cause is
   * "stage/code"; trials stored before stages existed are grouped by their message.
   */
  errors: {
    count: number;
    by_cause: { cause: string; count: number; message: string; example: string }[];
  };
  /** Sandbox used and trials with integrity flags (src/integrity/). */
  integrity: IntegritySummary;
  /** Where the trials' time went, per phase; null when no trial was timed (src/report/phases.ts). */
  phases: PhaseSummary | null;
  /**
   * Tasks that ran without passing gate evidence for their content (src/task/evidence.ts);
   * recorded: false for runs that predate evidence.
   */
  evidence: {
    recorded: boolean;
    unverified: { task_id: string; status: EvidenceStatus }[];
    trials: number;
  };
  /**
   * Lifecycle: tasks that ran while calibrating (observations, not part of a release), and
   * saturated tasks (pooled solve rate >= 0.9: they no longer separate models), recorded as such
   * in their task file when the run started, or saturated by the rule among this run's trials.
   */
  lifecycle: {
    calibrating: string[];
    saturated: {
      recorded: { task_id: string; pooled_rate: number; reason: string }[];
      this_run: RunSaturation[];
    };
  };
}

export interface ReportInputs {
  tasks: ResolvedTaskMeta;
  cutoffs: Cutoffs | null;
  /** The latest Level-4 audit of the database; its policy is applied to every label shown. */
  audit?: AuditSummary | null;
}

function errorSummary(trials: ReportTrial[]): Report['errors'] {
  const groups = new Map<string, { count: number; message: string; example: string }>();
  let count = 0;
  for (const t of trials) {
    if (t.status !== 'error') continue;
    count++;
    const message = t.error.slice(0, 200);
    const cause = t.error_stage ? `${t.error_stage}/${t.error_code ?? 'failed'}` : message;
    const g = groups.get(cause);
    if (g) g.count++;
    else
      groups.set(cause, {
        count: 1,
        message,
        example: `${t.task_id} ${t.provider}/${t.model} ${t.mode} #${t.attempt}`,
      });
  }
  const by_cause = [...groups]
    .map(([cause, g]) => ({ cause, ...g }))
    .sort((a, b) => b.count - a.count || (a.cause < b.cause ? -1 : 1));
  return { count, by_cause };
}

function contaminationSummary(matrix: MatrixCell[], cutoffs: Cutoffs | null) {
  const models = new Map<string, ContaminationModel>();
  for (const c of matrix) {
    if (c.provider === 'none') continue; // control agents are not models
    const k = joinKey(c.provider, c.model);
    const m = getOrInit(models, k, () => ({
      provider: c.provider,
      model: c.model,
      cutoff: cutoffs ? (cutoffFor(cutoffs, c.provider, c.model)?.cutoff ?? null) : null,
      cells: 0,
      pre_cutoff_cells: 0,
    }));
    m.cells++;
    if (c.contamination === 'pre_cutoff') m.pre_cutoff_cells++;
  }
  const list = [...models.values()];
  return {
    cutoffs_file: cutoffs?.file ?? null,
    pre_cutoff_cells: list.reduce((a, m) => a + m.pre_cutoff_cells, 0),
    models: list,
  };
}

export function buildReport(run: RunRecord, given: ReportTrial[], inputs: ReportInputs): Report {
  // Every label below is shown as the audit policy says (a no-op when the caller applied it).
  const trials = applyAudit(given, inputs.audit?.agreement);
  const cfg = readRunConfig(run);
  const tasks = inputs.tasks.source === 'unavailable' ? null : inputs.tasks.tasks;
  const matrix = providerMatrix(trials, { tasks: tasks ?? undefined, cutoffs: inputs.cutoffs });
  const byModel = new Map<string, ReportTrial[]>();
  const rowKey = (t: ReportTrial) => joinKey(t.provider, t.model, t.mode, t.agent ?? '');
  for (const t of trials) getOrInit(byModel, rowKey(t), () => []).push(t);
  const models = [...tallyBy(trials, rowKey)]
    .map(([k, tally]): ModelRow => {
      const [provider, model, mode, agent] = splitKey(k);
      return {
        ...(byModel.get(k)?.[0]?.agent !== undefined && { agent }),
        provider,
        model,
        mode,
        tasks: taskWeightedRate(taskResults(byModel.get(k) ?? [])),
        rate: tally.rate(),
        usage: usageTotals(byModel.get(k) ?? []),
      };
    })
    .sort((a, b) =>
      joinKey(a.provider, a.model, a.mode, a.agent ?? '') <
      joinKey(b.provider, b.model, b.mode, b.agent ?? '')
        ? -1
        : 1,
    );
  const ranTasks = new Set(trials.map((t) => t.task_id));
  const tiers = tasks
    ? Object.entries(tasks)
        .filter(([id]) => ranTasks.has(id))
        .map(([, m]) => m.tier)
    : [];
  return {
    run: {
      id: run.id,
      status: run.status,
      created_at: run.created_at,
      finished_at: run.finished_at,
      plan_size: run.plan_size,
      trials: trials.length,
      agent: cfg.agent ?? '?',
      datasets: cfg.datasets ?? [],
      agent_info: cfg.agent_info,
    },
    sampling: {
      ...samplingPolicy(cfg.runs, tiers),
      undersampled_cells: matrix.filter((c) => c.undersampled).length,
    },
    audit: inputs.audit ?? null,
    task_meta: {
      source: inputs.tasks.source,
      tasks: Object.keys(inputs.tasks.tasks).length,
      note: inputs.tasks.note,
    },
    overall: rateOf(trials),
    models,
    navigation_delta: navigationDeltas(trials),
    harness_delta: harnessDeltas(trials),
    taxonomy: withHarbor(taxonomy(trials), trials, tasks),
    reading: readingSummary(trials),
    breakdowns: breakdowns(trials, tasks),
    matrix,
    contamination: contaminationSummary(matrix, inputs.cutoffs),
    errors: errorSummary(trials),
    integrity: integritySummary(run.config, trials),
    evidence: evidenceSummary(tasks, trials),
    phases: phaseSummary(trials),
    lifecycle: lifecycleSummary(cfg, tasks, trials),
  };
}

function lifecycleSummary(
  cfg: ReturnType<typeof readRunConfig>,
  tasks: TaskMetaMap | null,
  trials: ReportTrial[],
): Report['lifecycle'] {
  const ran = new Set(trials.map((t) => t.task_id));
  const meta = Object.entries(tasks ?? {})
    .filter(([id]) => ran.has(id))
    .sort(([a], [b]) => naturalCompare(a, b));
  return {
    calibrating: meta.filter(([, m]) => m.state === 'calibrating').map(([id]) => id),
    saturated: {
      recorded: meta.flatMap(([task_id, m]) => (m.saturated ? [{ task_id, ...m.saturated }] : [])),
      this_run: saturatedInRun(cfg, trials),
    },
  };
}

function withHarbor(t: Taxonomy, trials: ReportTrial[], tasks: TaskMetaMap | null): Taxonomy {
  const n = trials.filter(
    (x) => x.status === 'scored' && tasks?.[x.task_id]?.kind === 'harbor',
  ).length;
  return n ? { ...t, harbor: { trials: n, note: harborNote(n) } } : t;
}

function evidenceSummary(tasks: TaskMetaMap | null, trials: ReportTrial[]): Report['evidence'] {
  const ran = new Set(trials.map((t) => t.task_id));
  const known = Object.entries(tasks ?? {}).filter(([id, m]) => ran.has(id) && m.evidence);
  const unverified = known
    .filter(([, m]) => m.evidence !== 'passing')
    .map(([task_id, m]) => ({ task_id, status: m.evidence as EvidenceStatus }))
    .sort((a, b) => naturalCompare(a.task_id, b.task_id));
  const ids = new Set(unverified.map((u) => u.task_id));
  return {
    recorded: known.length > 0,
    unverified,
    trials: trials.filter((t) => ids.has(t.task_id)).length,
  };
}
