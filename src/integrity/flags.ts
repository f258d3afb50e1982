// Integrity flags: what an agent touched that it should not have. They are recorded on the trial
// (--integrity flag, the default), dropped (off), or turn a rewarded trial into a failure
// (strict). Hardening happens in every mode: a flag says the agent tried, not that it got paid.

export const INTEGRITY_MODES = ['off', 'flag', 'strict'] as const;
export type IntegrityMode = (typeof INTEGRITY_MODES)[number];

export const INTEGRITY_FLAGS = {
  touched_tests: 'changed test files (restored before verifying)',
  touched_test_infra: 'changed test infrastructure (restored before verifying)',
  touched_git_internals: 'changed .git control files or brought in commits past base_commit',
  escaped_workspace: 'wrote, linked or named paths outside the workspace',
  network_blocked: 'tried to reach the network (blocked by the sandbox)',
  wrote_result_file: "wrote the suite's result file (deleted before the suites ran)",
} as const;
export type IntegrityFlag = keyof typeof INTEGRITY_FLAGS;

/** One of the flags above (a trial's flags also hold others: files_changed_disagree...). */
export const isIntegrityFlag = (f: string): f is IntegrityFlag => f in INTEGRITY_FLAGS;

/** The label a strict run gives a flagged trial that earned something. */
export const STRICT_LABEL = 'integrity_violation';

/**
 * The strict rule: a scored trial with a positive score and at least one integrity flag gets
 * score 0 and label `integrity_violation`; its original label and score and the flags that
 * decided it are kept in details.integrity.strict. Confidence level and tests stay as measured.
 */
/** What the strict rule reads and rewrites of a trial's record (src/trial/record.ts). */
export interface FlaggedRecord {
  status: string;
  score: number | null;
  label: string | null;
  flags: string[];
  /** The trial's details; the rule adds `integrity.strict` beside what the audit wrote there. */
  details: { integrity?: Record<string, unknown> } & Record<string, unknown>;
}

export function applyIntegrity(rec: FlaggedRecord, flags: IntegrityFlag[], mode: IntegrityMode) {
  if (mode === 'off') return;
  rec.flags.push(...flags);
  if (mode !== 'strict' || rec.status !== 'scored' || !rec.score || flags.length === 0) return;
  const reason = flags.map((f) => `${f}: ${INTEGRITY_FLAGS[f]}`).join('; ');
  rec.details.integrity = {
    ...rec.details.integrity,
    strict: { original_label: rec.label, original_score: rec.score, reason },
  };
  rec.label = STRICT_LABEL;
  rec.score = 0;
  rec.flags.push('integrity_strict_failed');
}
