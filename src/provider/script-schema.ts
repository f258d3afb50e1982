// Script format for the scripted model server: per model, per task, the exact replies to give.
// A script is data, not a model: it lets tests and demos drive a real agent deterministically.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ZodIssue, z } from 'zod';
import { UserError } from '../util/errors.js';

// Each failure is sent in the wire format of the request (src/provider/scripted-formats.ts).
export const FAIL_KINDS = [
  'rate_limit', // HTTP 429, generic rate limit
  'quota', // HTTP 429 "You exceeded your current quota" (Anthropic: its 400 credit balance)
  'context_http', // HTTP 400, the format's context length error
  'context_stream', // HTTP 200, then the format's error event about the context length
  'server_error', // HTTP 500
  'auth', // HTTP 401, the key is refused
  'forbidden', // HTTP 403, the key may not use the model
  'billing', // HTTP 402, no credit left
  'model_not_found', // HTTP 404, no such model
  'slow', // wait delay_ms before sending headers, then answer "Done."
] as const;
export type FailKind = (typeof FAIL_KINDS)[number];

/** Failures a whole model can answer with (`refuse`): the provider refusing service. */
export const REFUSE_KINDS = [
  'auth',
  'forbidden',
  'billing',
  'model_not_found',
  'rate_limit',
  'quota',
  'server_error',
] as const satisfies readonly FailKind[];

const ToolCallSchema = z
  .object({
    tool: z.string().min(1).describe('tool name as the agent registers it, e.g. "read_file"'),
    args: z.record(z.unknown()).default({}),
  })
  .strict();

/** Wait this long before answering (headers included): a provider that takes time to think. */
const DelaySchema = z
  .number()
  .int()
  .nonnegative()
  .max(3_600_000)
  .optional()
  .describe('wait this many ms before replying, as a provider thinking would');

const RetryAfterSchema = z
  .number()
  .int()
  .min(0)
  .max(3600)
  .optional()
  .describe('the retry-after header of the failure (default 0: retries come at once)');

/** The first request for this turn fails, the agent's retry gets the step: a transient failure. */
const FailFirstSchema = z
  .object({ fail: z.enum(['rate_limit', 'server_error']), retry_after_sec: RetryAfterSchema })
  .strict()
  .optional();

/** What every answering step may add. */
const answering = { delay_ms: DelaySchema, fail_first: FailFirstSchema };

export const StepSchema = z.union([
  ToolCallSchema.extend(answering).strict(),
  z.object({ tools: z.array(ToolCallSchema).min(1), ...answering }).strict(),
  z.object({ final: z.string(), ...answering }).strict(),
  z
    .object({
      fail: z.enum(FAIL_KINDS),
      delay_ms: DelaySchema,
      retry_after_sec: RetryAfterSchema,
    })
    .strict(),
]);
export type Step = z.infer<typeof StepSchema>;
export type ScriptToolCall = z.infer<typeof ToolCallSchema>;

export type Behaviour = { steps: Step[] } | { variants: Behaviour[] };
type BehaviourInput = { steps: z.input<typeof StepSchema>[] } | { variants: BehaviourInput[] };

// Recursive: variants may nest, e.g. a variant that is itself right half of the time.
export const BehaviourSchema: z.ZodType<Behaviour, z.ZodTypeDef, BehaviourInput> = z.lazy(() =>
  z.union([
    z.object({ steps: z.array(StepSchema) }).strict(),
    z.object({ variants: z.array(BehaviourSchema).min(1) }).strict(),
  ]),
);

export const ModelScriptSchema = z
  .object({
    model: z.string().min(1).describe('model name the agent sends in "model"'),
    description: z.string().default(''),
    refuse: z
      .enum(REFUSE_KINDS)
      .optional()
      .describe(
        "the provider refuses every request for this model, the run's preflight included (a wrong key, no credit, no such model)",
      ),
    tasks: z
      .record(BehaviourSchema)
      .default({})
      .describe('behaviour per task id; "*" is the fallback for any other task'),
    bare: z
      .record(BehaviourSchema)
      .optional()
      .describe(
        'what the model answers the bare agent (src/agent/bare.ts), per task id ("*": any other): requests without tools; absent, those get `tasks` too',
      ),
  })
  .strict();
export type ModelScript = z.infer<typeof ModelScriptSchema>;
export type ModelScriptInput = z.input<typeof ModelScriptSchema>;

/**
 * Zod reports a failed union as one vague issue. A branch missing one of its own keys is not
 * the one the author meant; when exactly one branch remains, report that branch's problem.
 */
function deepestIssue(issue: ZodIssue): ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const depth = issue.path.length + 1;
  const meant = issue.unionErrors.filter(
    (e) =>
      !e.issues.some(
        (i) => i.code === 'invalid_type' && i.received === 'undefined' && i.path.length === depth,
      ),
  );
  return meant.length === 1 && meant[0].issues[0] ? deepestIssue(meant[0].issues[0]) : issue;
}

function describeIssue(issue: ZodIssue): string {
  const deep = deepestIssue(issue);
  const where = deep.path.length ? deep.path.join('.') : '(top level)';
  if (deep.code === 'invalid_union') {
    const isStep = deep.path.includes('steps');
    const expected = isStep
      ? 'a step: {"tool","args"}, {"tools":[...]}, {"final"} or {"fail","retry_after_sec"?}, each with "delay_ms"? (the others "fail_first"? too)'
      : 'a behaviour: {"steps":[...]} or {"variants":[...]}';
    return `${where}: expected ${expected}`;
  }
  return `${where}: ${deep.message}`;
}

/** Validate one script; errors name the source and the field. */
export function parseScript(data: unknown, source: string): ModelScript {
  const parsed = ModelScriptSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${describeIssue(i)}`);
  throw new UserError('invalid_script', `${source}: invalid model script\n${lines.join('\n')}`);
}

/** Read every *.json in dir as a model script (sorted by file name); model names must be unique. */
export async function loadScripts(dir: string): Promise<ModelScript[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    throw new UserError('invalid_script', `cannot read script directory ${dir}: ${String(err)}`);
  }
  const scripts: ModelScript[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const file = path.join(dir, name);
    let data: unknown;
    try {
      data = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new UserError('invalid_script', `${file}: not valid JSON (${(err as Error).message})`);
    }
    const script = parseScript(data, file);
    const other = seen.get(script.model);
    if (other)
      throw new UserError(
        'invalid_script',
        `${file}: model: "${script.model}" is also scripted in ${other}`,
      );
    seen.set(script.model, file);
    scripts.push(script);
  }
  return scripts;
}
