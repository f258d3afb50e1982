// The model endpoint each LLM-agent trial talks to. Offline that is the scripted model server;
// real providers will go through NanoBench's own proxy (not built yet).
import { join } from 'node:path';
import type { RunConfig } from '../run/config.js';
import type { TrialSpec } from '../run/plan.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { loadScripts, startScriptedServer } from './scripted-server.js';

export const DEFAULT_SCRIPTS_DIR = join(PACKAGE_ROOT, 'examples', 'scripted-models');

export interface Endpoints {
  endpointFor(spec: TrialSpec): { baseUrl: string; apiKey: string } | undefined;
  close(): Promise<void>;
}

const NONE: Endpoints = { endpointFor: () => undefined, close: async () => {} };

export async function startEndpoints(config: RunConfig, llmAgent: boolean): Promise<Endpoints> {
  if (!llmAgent) return NONE;
  const providers = [...new Set(config.models.map((m) => m.provider))];
  const unsupported = providers.filter((p) => p !== 'scripted');
  if (unsupported.length)
    throw new UserError(
      'PROVIDER_UNAVAILABLE',
      `provider "${unsupported[0]}": only the offline scripted model server ("--provider scripted") is available in this version; real providers need the NanoBench provider proxy`,
    );
  const dir = config.scripts ?? DEFAULT_SCRIPTS_DIR;
  const scripts = await loadScripts(dir);
  const known = scripts.map((s) => s.model);
  const missing = config.models.filter((m) => !known.includes(m.model)).map((m) => m.model);
  if (missing.length)
    throw new UserError(
      'UNKNOWN_MODEL',
      `scripted model(s) ${missing.join(', ')} not found in ${dir} (available: ${known.join(', ')})`,
    );
  const server = await startScriptedServer(scripts);
  return {
    endpointFor: (spec) => ({
      baseUrl: server.baseUrlFor(spec.task.task.task_id, spec.attempt),
      apiKey: 'scripted-no-key',
    }),
    close: () => server.close(),
  };
}
