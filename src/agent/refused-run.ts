// An agent run refused before anything started (no endpoint, a provider the agent cannot speak):
// an infra error with the agent's facts so far, the same shape for every agent.
import type { AgentResult } from './types.js';

export function refusedRun(infraError: string, meta: Record<string, unknown>): AgentResult {
  return {
    exitCode: null,
    exitKind: 'error',
    stdout: '',
    stderr: '',
    durationMs: 0,
    timedOut: false,
    infraError,
    meta,
  };
}
