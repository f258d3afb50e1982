// The kinds of task a trial can run, by name: the one place a task's kind is told apart.
// Each is loaded when a trial of it first runs (a run of PR tasks never loads the Harbor judge).
import { isHarborLoaded } from '../task/load.js';
import type { TrialKind } from './kind.js';
import type { RunnableTask } from './spec.js';

export const TASK_KINDS = {
  /** A task drawn from a merged pull request (schema v1). */
  pr: async () => (await import('./pr/kind.js')).prKind,
  /** A Harbor task directory (task.toml, instruction.md, tests/), in its environment image. */
  harbor: async () => (await import('../harbor/trial.js')).harborKind(),
} satisfies Record<string, () => Promise<TrialKind>>;

export type TaskKindName = keyof typeof TASK_KINDS;

export const taskKindOf = (task: RunnableTask): TaskKindName =>
  isHarborLoaded(task) ? 'harbor' : 'pr';
