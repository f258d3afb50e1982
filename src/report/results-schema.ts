// The machine-readable results (`run --json`, `report --format json`, `demo --json`) as zod
// schemas. trial-view.ts builds its objects as these types, so the view cannot drift from the
// schema, and schemas/results.schema.json is generated from them (src/report/json-schemas.ts; a test
// compares the checked-in file and validates real output against it).
import { z } from 'zod';
import { PROVIDER_KINDS } from '../provider/kinds.js';

const Count = z.number().int().nonnegative();
const Ms = z.number().nonnegative();

const Tokens = z
  .object({ input: Count, output: Count, total: Count })
  .strict()
  .describe('tokens the provider reported (usage blocks of its replies), summed over the trial');

const Latency = z
  .object({
    ttfb_median: Ms.nullable(),
    ttfb_p95: Ms.nullable(),
    total_median: Ms.nullable(),
    total_p95: Ms.nullable(),
    total_sum: Ms,
    queued_sum: Ms.optional().describe(
      "time the requests waited at the proxy for one of their provider's request slots before going out (not in the other figures; absent in older records)",
    ),
  })
  .strict()
  .describe('per model request, measured at the proxy: time to first byte and to the last');

export const FilesReadSchema = z
  .object({
    count: Count.describe('distinct files whose content the agent read (read_file calls)'),
    bytes: Count.describe('bytes of content those reads returned (re-reads count again)'),
    paths: z.array(z.string()).describe('the files, workspace-relative, sorted (at most 200)'),
    paths_truncated: z.literal(true).optional(),
    required: z.array(z.string()).describe("the task's required_files among them"),
    required_total: Count.describe('how many required_files the task has'),
  })
  .strict();

const ToolCalls = z
  .object({
    total: Count,
    failed: Count.describe('calls the agent reported as failed (tool errors)'),
    by_tool: z.record(Count),
  })
  .strict();

export const TrialViewSchema = z
  .object({
    task_id: z.string(),
    agent: z.string(),
    provider: z.string(),
    model: z.string(),
    mode: z.string(),
    attempt: z.number().int().positive(),
    status: z.enum(['scored', 'error']),
    score: z.number().nullable(),
    label: z
      .string()
      .nullable()
      .describe('failure taxonomy label, as reports show it (the Level-4 audit policy applied)'),
    confidence_level: z.string().nullable(),
    tests: z.object({ passed: Count, failed: Count, total: Count }).strict(),
    files_changed: z.array(z.string()),
    flags: z.array(z.string()),
    exit_kind: z.string().nullable(),
    timed_out: z.boolean(),
    error: z.string().nullable(),
    error_stage: z.string().nullable().describe('where an infra error happened (status "error")'),
    error_code: z.string().nullable(),
    duration_ms: Count,
    explanation: z.string().nullable(),
    artifacts_dir: z.string().nullable(),
    provider_kind: z
      .enum(PROVIDER_KINDS)
      .nullable()
      .describe('wire format of the model endpoint; null when no model was called (controls)'),
    tokens: Tokens.nullable().describe('null when no provider proxy counted the trial'),
    usage_missing: Count.nullable().describe(
      'replies without a usage block: tokens undercount and cost_usd is null when > 0',
    ),
    requests: Count.nullable().describe('model requests the agent made'),
    retries: Count.nullable().describe('requests repeated byte for byte after an error reply'),
    latency_ms: Latency.nullable(),
    temperature_sent: z
      .union([z.number(), z.literal('mixed')])
      .nullable()
      .describe(
        'temperature the proxy sent upstream; null when none was (provider default: see non_deterministic) or no model was called',
      ),
    non_deterministic: z
      .boolean()
      .describe('some request went out without a pinned temperature (whitepaper §8.5)'),
    cost_usd: z
      .number()
      .nonnegative()
      .nullable()
      .describe('from the providers file prices; null without prices, usage or on replay'),
    tool_calls: ToolCalls.nullable().describe('null when the agent reports no tool calls'),
    files_read: FilesReadSchema.nullable().describe(
      'the evidence of insufficient_context_read (and of its flag context_explosion); null when the agent reports no tool calls',
    ),
  })
  .strict();

export type TrialView = z.infer<typeof TrialViewSchema>;

const Interval = z.object({ low: z.number(), high: z.number() }).passthrough();

const Rate = z
  .object({
    trials: Count,
    scored: Count,
    passed: Count,
    errors: Count,
    pass_rate: z.number().nullable(),
    ci95: Interval,
    mean_score: z.number().nullable(),
    non_deterministic: z.boolean(),
  })
  .strict();

const Open = z.object({}).passthrough();

/** The report model (src/report/model.ts): its sections, with the rates typed. */
const ReportSchema = z
  .object({
    run: Open,
    sampling: Open,
    task_meta: Open,
    audit: Open.nullable().describe('the latest Level-4 audit the labels follow; null if none'),
    overall: Rate,
    models: z.array(Open),
    navigation_delta: z.array(Open),
    harness_delta: z
      .array(Open)
      .describe(
        'per provider, model and mode: the harness minus the bare agent (src/report/harness.ts)',
      ),
    taxonomy: Open,
    reading: Open.describe('files read per model and the insufficient_context_read trials'),
    breakdowns: z.array(Open),
    matrix: z.array(Open),
    contamination: Open,
    errors: Open,
    integrity: Open,
    evidence: Open.describe('tasks that ran without passing gate evidence for their content'),
    lifecycle: Open.describe('tasks that ran while calibrating, and saturated tasks'),
    phases: z
      .object({
        trials: Count.describe('trials with timed phases'),
        phases: z.array(
          z.object({ phase: z.string(), mean_ms: Ms, median_ms: Ms, share: z.number() }).strict(),
        ),
        mean_total_ms: Ms.describe("sum of the phases' means: a typical trial"),
        provision: z
          .record(z.string(), Count)
          .describe('trials per provisioning mode (overlay, fuse-overlayfs, reflink, copy)'),
      })
      .strict()
      .nullable()
      .describe("where the trials' time went (details.phase_ms); null when no trial was timed"),
  })
  .strict();

export const ResultsSchema = z
  .object({
    run_id: z.string(),
    status: z.enum(['running', 'finished', 'interrupted']),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    plan_size: Count,
    nanobench_version: z
      .string()
      .nullable()
      .describe('NanoBench that ran it; null for runs recorded before it was'),
    scoring_rules_version: z
      .number()
      .int()
      .nullable()
      .describe(
        'rules that scored it (src/score/rules.ts); null: recorded before rules had versions (1 or older)',
      ),
    summary: z
      .object({
        trials: Count,
        scored: Count,
        errors: Count,
        passed: Count,
        mean_score: z.number().nullable(),
      })
      .strict(),
    trials: z.array(TrialViewSchema),
    report: ReportSchema.optional().describe('present in `report --format json`'),
    matrix: z.array(Open).optional().describe('present in `demo --json`'),
  })
  .strict();
