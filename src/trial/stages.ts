// Where a trial can fail, and the phases it times. Imports nothing: the reports, the store and
// the CLI read these without loading the trial's machinery.

/**
 * Where a trial can fail. Harness phases in order, then whose fault it was when no phase is: the
 * provider's, the task's (its lists or its suites cannot grade it), a Harbor task's grader's,
 * and the two that can happen anywhere.
 */
export const STAGES = [
  'provision',
  'agent',
  'guard',
  'diff',
  'harden',
  'verify',
  'score',
  'audit',
  'provider',
  'task',
  'grader',
  'interrupted',
  'internal',
] as const;
export type Stage = (typeof STAGES)[number];

/** Stages that name a fault, not a phase of the trial. */
export const FAULT_STAGES = ['provider', 'task', 'grader', 'interrupted', 'internal'] as const;

/** The harness phases, in the order a trial runs them. */
export type PhaseStage = Exclude<Stage, (typeof FAULT_STAGES)[number]>;

export const isStage = (s: string): s is Stage => (STAGES as readonly string[]).includes(s);

/** The phases a trial times (details.phase_ms), in the order it runs them. */
export const TIMED_PHASES = [
  ...STAGES.filter((s): s is PhaseStage => !(FAULT_STAGES as readonly string[]).includes(s)),
  'teardown',
] as const;
export type TimedPhase = PhaseStage | 'teardown';
