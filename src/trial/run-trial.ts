// One trial of any task: its kind (src/trial/kinds.ts) through the one template.
import type { TrialEnv } from './env.js';
import { TASK_KINDS, taskKindOf } from './kinds.js';
import type { TrialRecord } from './record.js';
import type { TrialSpec } from './spec.js';
import { runTemplate } from './template.js';

export async function runTrial(spec: TrialSpec, env: TrialEnv): Promise<TrialRecord> {
  const kind = await TASK_KINDS[taskKindOf(spec.task)]();
  return runTemplate(kind, spec, env);
}
