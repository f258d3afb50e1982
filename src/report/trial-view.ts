// The public JSON shape of a run and its trials (`run --json`, `report --format json`): stable
// field names, typed by src/report/results-schema.ts and checked in as schemas/results.schema.json.
// Per trial: the outcome, and the telemetry behind it (tokens, requests, retries, latency,
// temperature sent, non-determinism, cost from the provider proxy; tool calls and files read
// from the agent's report).

import type { z } from 'zod';
import { readRunConfig } from '../run/stored-config.js';
import type { RunRecord, TrialRecord } from '../store/store.js';
import type { ResultsSchema, TrialView } from './results-schema.js';

export function trialView(t: TrialRecord): TrialView {
  const proxy = t.details.proxy;
  const calls = t.details.tool_calls;
  return {
    task_id: t.task_id,
    agent: t.agent,
    provider: t.provider,
    model: t.model,
    mode: t.mode,
    attempt: t.attempt,
    status: t.status,
    score: t.score,
    label: t.label,
    confidence_level: t.confidence_level,
    tests: { passed: t.tests_passed, failed: t.tests_failed, total: t.tests_total },
    files_changed: t.files_changed,
    flags: t.flags,
    exit_kind: t.exit_kind,
    timed_out: t.timed_out,
    error: t.error,
    error_stage: t.error_stage ?? null,
    error_code: t.error_code ?? null,
    duration_ms: t.duration_ms,
    explanation: t.details.explanation ?? null,
    artifacts_dir: t.artifacts_dir,
    // Trials recorded before the proxy knew kinds spoke OpenAI chat completions.
    provider_kind: proxy ? (proxy.kind ?? 'openai-compatible') : null,
    tokens: proxy?.tokens
      ? { ...proxy.tokens, total: proxy.tokens.total ?? proxy.tokens.input + proxy.tokens.output }
      : null,
    usage_missing: proxy?.usage_missing ?? null,
    requests: proxy?.requests ?? null,
    retries: proxy?.retries ?? null,
    latency_ms: proxy?.latency_ms ?? null,
    temperature_sent: proxy?.temperature_sent ?? null,
    non_deterministic: t.flags.includes('non_deterministic'),
    cost_usd: proxy?.cost_usd ?? null,
    tool_calls: calls ? { total: calls.calls, failed: calls.failed, by_tool: calls.by_tool } : null,
    files_read: t.details.files_read ?? null,
  };
}

type Results = z.infer<typeof ResultsSchema>;

export function runView(run: RunRecord, trials: TrialRecord[]): Results {
  const scored = trials.filter((t) => t.status === 'scored');
  const cfg = readRunConfig(run);
  return {
    run_id: run.id,
    status: run.status,
    created_at: run.created_at,
    finished_at: run.finished_at,
    plan_size: run.plan_size,
    nanobench_version: cfg.nanobench_version ?? null,
    scoring_rules_version: cfg.scoring_rules_version ?? null,
    summary: {
      trials: trials.length,
      scored: scored.length,
      errors: trials.length - scored.length,
      passed: scored.filter((t) => t.label === 'pass').length,
      mean_score: scored.length ? scored.reduce((a, t) => a + t.score, 0) / scored.length : null,
    },
    trials: trials.map(trialView),
  };
}
