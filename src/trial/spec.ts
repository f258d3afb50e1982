// What one trial runs: a task (a PR task with its patches, or a Harbor task) with one agent, one
// model and one mode, and its attempt number. The run plans these (src/run/plan.ts).
import type { Mode } from '../agent/types.js';
import type { HarborTask } from '../task/harbor.js';
import type { LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';

/** What a trial runs: a PR task with its patches, or a Harbor task. */
export type RunnableTask = LoadedTask<ResolvedTask | HarborTask>;

export interface TrialSpec {
  key: string;
  task: RunnableTask;
  agent: string;
  provider: string;
  model: string;
  mode: Mode;
  attempt: number;
}
