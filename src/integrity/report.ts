// What a report says about integrity: whether the run was sandboxed, and which trials carry
// integrity flags. Built from the stored run configuration and the trials' flags only.
import { INTEGRITY_FLAGS, STRICT_LABEL } from './flags.js';

export interface FlaggedTrial {
  task_id: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  label: string | null;
  score: number | null;
  flags: string[];
}

export interface IntegritySummary {
  /** The sandbox the run used ("bwrap", "none"), or null for runs stored before it was recorded. */
  sandbox: string | null;
  integrity_mode: string | null;
  flagged: FlaggedTrial[];
}

const isIntegrityFlag = (f: string) => f in INTEGRITY_FLAGS;

export function integritySummary(
  config: Record<string, unknown>,
  trials: (Omit<FlaggedTrial, 'flags'> & { flags: string[] | null })[],
): IntegritySummary {
  return {
    sandbox: typeof config.sandbox_used === 'string' ? config.sandbox_used : null,
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

/** Markdown lines (empty when there is nothing to say). */
/** The warning that belongs at the top of a report, if any. */
export function sandboxWarningMarkdown(s: IntegritySummary): string[] {
  return s.sandbox === 'none'
    ? [
        '> **Warning: no sandbox.** Agents ran with `--sandbox none`: they could read the dataset (golden patches included), the results and the network. Scores from this run are not tamper-proof.',
      ]
    : [];
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
