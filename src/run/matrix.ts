// `nanobench run --matrix FILE`: the (provider, model) pairs of one run, and optionally its
// modes and runs per task, in a checked-in file instead of a long --model line (what a team
// keeps next to its providers file). Parsed here and turned into the options `--model`,
// `--mode` and `--runs` would give, so the run is planned, preflighted and stored exactly as
// one named on the command line; the file's content is stored in the run's config (`matrix`).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import {
  isLlmAgent,
  MAX_RUNS,
  type RunConfig,
  type RunOptionsInput,
  resolveRunConfig,
} from './config.js';

export const MatrixSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    models: z
      .array(
        z
          .object({
            provider: z.string().min(1).describe('scripted, or a name the providers file declares'),
            model: z.string().min(1),
          })
          .strict(),
      )
      .min(1)
      .describe('the (provider, model) pairs of the run, in this order'),
    modes: z
      .array(z.enum(['hinted', 'navigation']))
      .min(1)
      .optional()
      .describe('default: --mode (hinted)'),
    runs: z
      .number()
      .int()
      .min(1)
      .max(MAX_RUNS)
      .optional()
      .describe('runs per task; default: by tier'),
  })
  .strict()
  .describe('A NanoBench run matrix (nanobench run --matrix FILE)');

export type RunMatrix = z.infer<typeof MatrixSchema>;

/** What the run's config keeps: the file and the matrix it held. */
export interface StoredMatrix extends RunMatrix {
  file: string;
}

export function readMatrix(file: string): RunMatrix {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const why =
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new UserError('BAD_MATRIX', `--matrix ${file}: ${why}`);
  }
  const parsed = MatrixSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.join('.') : '(top level)';
    throw new UserError('BAD_MATRIX', `--matrix ${file}: ${where}: ${issue.message}`);
  }
  return parsed.data;
}

/** Options the matrix stands for; the same options given on the command line are refused. */
function matrixOptions(m: RunMatrix, o: RunOptionsInput, file: string): RunOptionsInput {
  const clash = [
    o.model?.length ? '--model' : undefined,
    m.modes && o.mode !== undefined ? '--mode' : undefined,
    m.runs !== undefined && o.runs !== undefined ? '--runs' : undefined,
  ].filter(Boolean);
  if (clash.length)
    throw new UserError(
      'BAD_OPTION',
      `--matrix ${file} names the run's ${clash.map((f) => f?.slice(2)).join(', ')}; drop ${clash.join(', ')} or edit the file`,
    );
  const modes = m.modes && [...new Set(m.modes)];
  return {
    ...o,
    model: m.models.map((p) => `${p.provider}:${p.model}`),
    ...(modes && { mode: modes.length === 2 ? 'both' : modes[0] }),
    ...(m.runs !== undefined && { runs: String(m.runs) }),
  };
}

/**
 * The run's config, from --matrix FILE when given (else the options alone). `mode` and `runs`
 * are the options as the user gave them (undefined when not given), so a clash can be told.
 */
export function resolveWithMatrix(
  datasets: string[],
  o: RunOptionsInput & { matrix?: string },
): RunConfig & { matrix?: StoredMatrix } {
  if (o.matrix === undefined) return resolveRunConfig(datasets, o);
  if (!isLlmAgent(o.agent))
    throw new UserError(
      'BAD_OPTION',
      `--matrix names models, for LLM agents (nanocoder), not for ${o.agent}`,
    );
  const m = readMatrix(o.matrix);
  const config = resolveRunConfig(datasets, matrixOptions(m, o, o.matrix));
  // A pair whose provider is neither scripted nor declared would be read as a model of
  // --provider ("openrouter:qwen" of scripted): name it instead.
  const unknown = m.models.find(
    (p) => !config.models.some((c) => c.provider === p.provider && c.model === p.model),
  );
  if (unknown)
    throw new UserError(
      'BAD_MATRIX',
      `--matrix ${o.matrix}: provider "${unknown.provider}" is neither scripted nor declared in the providers file${config.providersConfig ? ` (${config.providersConfig})` : ' (none found: --providers-config FILE)'}`,
    );
  return { ...config, matrix: { file: resolve(o.matrix), ...m } };
}
