// `audit export`: a blinded sample of a run's Level-4 trials for human review. Reviewers see
// only the failure output and the diff (whitepaper §9.2): no provider, model, agent, run or task
// id. Items carry opaque ids; the key that maps them back to trials is a separate file the
// maintainer keeps private.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { unknownRunMessage } from '../report/run-list.js';
import type { Store, TrialRecord } from '../store/store.js';
import { ARTIFACT, suiteArtifact, suitesIn } from '../trial/artifacts.js';
import { UserError } from '../util/errors.js';
import { LEVEL4_LABELS } from './policy.js';

export const AUDIT_CHOICES = [...LEVEL4_LABELS, 'neither'] as const;

export interface AuditItem {
  id: string;
  /** Test output of each suite (stdout and stderr), as the verifier captured it, redacted. */
  failure: { suite: string; stdout: string; stderr: string }[];
  /** The agent's change, redacted. */
  diff: string;
  /** The reviewer writes one of `choices` here. */
  label: string | null;
}

export interface AuditExport {
  format: 'nanobench-audit/1';
  created_at: string;
  instructions: string;
  choices: string[];
  items: AuditItem[];
}

export interface AuditKeyEntry {
  trial_key: string;
  task_id: string;
  agent: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  engine_label: string;
}

export interface AuditKey {
  format: 'nanobench-audit-key/1';
  run_id: string;
  created_at: string;
  seed: string;
  items: Record<string, AuditKeyEntry>;
}

const INSTRUCTIONS =
  'For each item, read the failing test output and the diff, and set "label" to hallucinated_api ' +
  '(the change uses a function, method, attribute or export that does not exist), ' +
  'wrong_abstraction_layer (it calls something that exists with the wrong interface: arity, ' +
  'keywords, argument types, not a constructor) or neither. Judge each item on its own.';

const MAX_TEXT = 40_000;

/** Keeps the head and the tail of long output: the error and the summary usually sit there. */
function clip(s: string): string {
  if (s.length <= MAX_TEXT) return s;
  const half = MAX_TEXT / 2;
  return `${s.slice(0, half)}\n[... ${s.length - MAX_TEXT} characters cut ...]\n${s.slice(-half)}`;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Removes everything that names the run, the agent, the provider or the model. */
export function redactor(t: TrialRecord, resultsRoot: string): (s: string) => string {
  const dirs = new RegExp(
    `${escapeRe(resultsRoot)}/(workspaces|scratch|artifacts)/[^/\\s]+/[^/\\s'"]+`,
    'g',
  );
  const names = [t.trial_key, t.run_id, t.agent, t.provider, t.model, resultsRoot]
    .filter((n) => n.length >= 3 && n !== 'none')
    .sort((a, b) => b.length - a.length);
  return (s) => {
    let out = s.replace(dirs, '<workspace>');
    for (const n of names) out = out.split(n).join('[redacted]');
    return out;
  };
}

function read(dir: string, file: string): string {
  const p = join(dir, file);
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
}

const rank = (seed: string, key: string) =>
  createHash('sha256').update(`${seed}\n${key}`).digest('hex');

export function exportAudit(
  store: Store,
  dbPath: string,
  runId: string,
  opts: { sample: number; seed: string },
): { doc: AuditExport; key: AuditKey } {
  if (!store.getRun(runId))
    throw new UserError('NO_RUN', unknownRunMessage(dbPath, runId, store.listRunIds()));
  const candidates = store
    .trials(runId)
    .filter((t) => t.status === 'scored' && (LEVEL4_LABELS as readonly string[]).includes(t.label));
  if (candidates.length === 0)
    throw new UserError(
      'NOTHING_TO_AUDIT',
      `run ${runId} has no hallucinated_api or wrong_abstraction_layer trials`,
    );
  // A seeded order: the same seed gives the same sample; the order says nothing about the trials.
  const sample = candidates
    .map((t) => ({ t, r: rank(opts.seed, t.trial_key) }))
    .sort((a, b) => (a.r < b.r ? -1 : 1))
    .slice(0, opts.sample)
    .map((x) => x.t);
  const root = dirname(resolve(dbPath));
  const now = new Date().toISOString();
  const doc: AuditExport = {
    format: 'nanobench-audit/1',
    created_at: now,
    instructions: INSTRUCTIONS,
    choices: [...AUDIT_CHOICES],
    items: [],
  };
  const key: AuditKey = {
    format: 'nanobench-audit-key/1',
    run_id: runId,
    created_at: now,
    seed: opts.seed,
    items: {},
  };
  for (const t of sample) {
    const id = randomBytes(6).toString('hex');
    const redact = redactor(t, root);
    const dir = t.artifacts_dir ?? '';
    const suites = existsSync(dir) ? suitesIn(readdirSync(dir)).sort() : [];
    doc.items.push({
      id,
      failure: suites.map((s) => ({
        suite: s,
        stdout: clip(redact(read(dir, suiteArtifact(s, 'stdout')))),
        stderr: clip(redact(read(dir, suiteArtifact(s, 'stderr')))),
      })),
      diff: clip(redact(read(dir, ARTIFACT.diff))),
      label: null,
    });
    key.items[id] = {
      trial_key: t.trial_key,
      task_id: t.task_id,
      agent: t.agent,
      provider: t.provider,
      model: t.model,
      mode: t.mode,
      attempt: t.attempt,
      engine_label: t.label ?? '',
    };
  }
  return { doc, key };
}
