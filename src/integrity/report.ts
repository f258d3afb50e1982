// What a report says about integrity: whether the run was sandboxed, and which trials carry
// integrity flags. Built from the stored run configuration and the trials' flags only.
import type { RecordLabel } from '../score/labels.js';
import { isIntegrityFlag, STRICT_LABEL } from './flags.js';

export interface FlaggedTrial {
  task_id: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  label: RecordLabel | null;
  score: number | null;
  flags: string[];
}

export interface IntegritySummary {
  /**
   * The weakest isolation any part of the run had: the run's own choice ("bwrap",
   * "none-as-nobody", "none") or, when weaker, a trial's (distributed workers choose their own).
   * Null for runs stored before it was recorded.
   */
  sandbox: string | null;
  /** Trials per isolation they really ran under (details.sandbox.kind). */
  sandbox_trials: Record<string, number>;
  integrity_mode: string | null;
  flagged: FlaggedTrial[];
}

/** Weakest first. Containers and bwrap both hide the host and the network but the endpoints. */
const ISOLATION_ORDER = ['none', 'none-as-nobody', 'bwrap', 'docker', 'podman'];

export function integritySummary(
  config: Record<string, unknown>,
  trials: (Omit<FlaggedTrial, 'flags'> & {
    flags: string[] | null;
    details?: Record<string, unknown> | null;
  })[],
): IntegritySummary {
  const perTrial: Record<string, number> = {};
  for (const t of trials) {
    const sandbox = t.details?.sandbox;
    const kind = sandbox && typeof sandbox === 'object' && 'kind' in sandbox && sandbox.kind;
    if (typeof kind === 'string') perTrial[kind] = (perTrial[kind] ?? 0) + 1;
  }
  const kinds = [config.sandbox_used, ...Object.keys(perTrial)].filter(
    (k): k is string => typeof k === 'string',
  );
  const rank = (k: string) => (ISOLATION_ORDER.includes(k) ? ISOLATION_ORDER.indexOf(k) : 99);
  return {
    sandbox: kinds.sort((a, b) => rank(a) - rank(b))[0] ?? null,
    sandbox_trials: perTrial,
    integrity_mode: typeof config.integrity === 'string' ? config.integrity : null,
    flagged: trials
      .filter((t) => (t.flags ?? []).some(isIntegrityFlag) || t.label === STRICT_LABEL)
      .map((t) => ({
        task_id: t.task_id,
        provider: t.provider,
        model: t.model,
        mode: t.mode,
        attempt: t.attempt,
        label: t.label,
        score: t.score,
        flags: (t.flags ?? []).filter(isIntegrityFlag),
      })),
  };
}

const MAX_ROWS = 20;

/** The warning that belongs at the top of a report, if any: a title and one paragraph. */
export function sandboxWarning(s: IntegritySummary): { title: string; text: string } | undefined {
  if (s.sandbox === 'none')
    return {
      title: 'Warning: no sandbox.',
      text: 'Agents ran without isolation (`none`): they could read the dataset (golden patches included), the results and the network. Scores from this run are not tamper-proof.',
    };
  if (s.sandbox === 'none-as-nobody')
    return {
      title: 'Warning: no sandbox for the network.',
      text: 'bwrap was not used: agents ran as the user nobody in their own mount and pid namespaces (`none-as-nobody`), unable to read the dataset, the results or the caches, but with the network of the machine they ran on.',
    };
  return undefined;
}

/** Markdown lines of the warning (empty when there is nothing to say). */
export function sandboxWarningMarkdown(s: IntegritySummary): string[] {
  const w = sandboxWarning(s);
  return w ? [`> **${w.title}** ${w.text}`] : [];
}

/** The flagged trials (after the scores: the flags explain, they do not replace them). */
export function integrityMarkdown(s: IntegritySummary, cell: (x: string) => string): string[] {
  const out: string[] = [];
  if (!s.flagged.length) return out;
  out.push(
    '## Integrity flags',
    '',
    `${s.flagged.length} trial(s) touched what they should not have (integrity mode: ${s.integrity_mode ?? 'flag'}; hardening undid it before grading).`,
    '',
    '| task | model | mode | # | label | score | flags |',
    '|---|---|---|---|---|---|---|',
  );
  for (const t of s.flagged.slice(0, MAX_ROWS))
    out.push(
      `| ${cell(t.task_id)} | ${cell(`${t.provider}/${t.model}`)} | ${t.mode} | ${t.attempt} | ${t.label ?? '—'} | ${t.score ?? '—'} | ${t.flags.join(', ')} |`,
    );
  if (s.flagged.length > MAX_ROWS) out.push('', `_${s.flagged.length - MAX_ROWS} more not shown._`);
  return out;
}
