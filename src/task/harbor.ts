// Harbor-format tasks: a directory holding task.toml (metadata, timeouts, resources),
// instruction.md (the prompt), environment/ (a Dockerfile, or [environment] docker_image),
// tests/test.sh (writes /logs/verifier/reward.txt or reward.json) and optionally
// solution/solve.sh; a benchmark is a directory of such directories. A separate task kind with
// its own loader and types: schema v1 (PR tasks) is not bent to hold them.
//
// NanoBench's own addition, outside Harbor's format: judge/ (a hidden grader behind an HTTP
// judge, src/harbor/judge/), kept out of environment/ so the agent's image can never hold it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { diskEscape } from '../util/contained-path.js';
import { UserError } from '../util/errors.js';
import { MAX_TIMEOUT_SEC } from './schema.js';

export const HARBOR_FILES = {
  config: 'task.toml',
  instruction: 'instruction.md',
  environment: 'environment',
  dockerfile: 'environment/Dockerfile',
  tests: 'tests',
  testScript: 'tests/test.sh',
  solution: 'solution/solve.sh',
  judge: 'judge',
} as const;

const seconds = z.number().positive().max(MAX_TIMEOUT_SEC);
const env = z.record(z.string()).default({});

/** task.toml, as far as NanoBench reads it; other keys are kept and listed by `task check`. */
export const HarborConfigSchema = z
  .object({
    version: z.string().default('1.0'),
    metadata: z.record(z.unknown()).default({}),
    verifier: z
      .object({ timeout_sec: seconds.default(600), env })
      .passthrough()
      .default({}),
    agent: z
      .object({ timeout_sec: seconds.default(600) })
      .passthrough()
      .default({}),
    environment: z
      .object({
        build_timeout_sec: seconds.default(600),
        docker_image: z.string().min(1).optional(),
        cpus: z.number().positive().max(256).optional(),
        memory_mb: z.number().int().positive().optional(),
        storage_mb: z.number().int().positive().optional(),
        gpus: z.number().int().min(0).optional(),
      })
      .passthrough()
      .default({}),
    solution: z.object({ env }).passthrough().optional(),
  })
  .passthrough();
export type HarborConfig = z.infer<typeof HarborConfigSchema>;

/** judge/judge.json: the submission budget. */
export const JudgeConfigSchema = z
  .object({
    max_submissions: z.number().int().positive().max(100_000),
    min_interval_sec: z.number().min(0).max(86_400).default(0),
    /** Seconds one grading may take; past it the submission scores 0. */
    grader_timeout_sec: z.number().positive().max(3600).default(60),
  })
  .strict();
export type JudgeConfig = z.infer<typeof JudgeConfigSchema>;

const JUDGE_FIX =
  'judge/judge.json: {"max_submissions": N (a positive integer), "min_interval_sec": S, "grader_timeout_sec": T}';

/**
 * What is wrong with a task's judge/judge.json, in one line naming the field, or undefined when
 * it is right. `task check` and the task loader say the same: a broken judge is refused when the
 * task is loaded, never met by every trial as a stack of validation errors.
 */
export function judgeConfigProblem(judgeDir: string): { problem: string; fix: string } | undefined {
  const file = join(judgeDir, 'judge.json');
  if (!existsSync(file))
    return {
      problem: 'judge/ has no judge.json',
      fix: 'add judge/judge.json: {"max_submissions": N, "min_interval_sec": S}',
    };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return {
      problem: `judge/judge.json is not JSON: ${(e as Error).message.split('\n')[0].slice(0, 200)}`,
      fix: JUDGE_FIX,
    };
  }
  const r = JudgeConfigSchema.safeParse(raw);
  if (r.success) return undefined;
  const i = r.error.issues[0];
  const field = i.path.length ? `field "${i.path.join('.')}"` : 'the top level';
  return { problem: `judge/judge.json: ${field}: ${i.message}`, fix: JUDGE_FIX };
}

export interface HarborTask {
  kind: 'harbor';
  task_id: string;
  /** Absolute path of the task directory. */
  dir: string;
  instruction: string;
  config: HarborConfig;
  timeouts: { agent_sec: number; verifier_sec: number };
  /** Always active: Harbor has no retirement; the field keeps planning uniform. */
  status: { state: 'active' };
  /** Absolute path of solution/ when it holds solve.sh. */
  solutionDir?: string;
  /** Absolute path of judge/ when the task has a hidden grader behind a judge. */
  judgeDir?: string;
}

export const isHarborDir = (dir: string): boolean =>
  existsSync(join(dir, HARBOR_FILES.config)) && statSync(dir).isDirectory();

/** A path holding Harbor tasks: a task directory, or a directory with task directories in it. */
export function harborTaskDirs(path: string): string[] | undefined {
  const abs = resolve(path);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) return undefined;
  if (isHarborDir(abs)) return [abs];
  const dirs = readdirSync(abs, { withFileTypes: true })
    .filter((d) => d.isDirectory() && isHarborDir(join(abs, d.name)))
    .map((d) => join(abs, d.name))
    .sort();
  return dirs.length ? dirs : undefined;
}

/** task.toml as data, or the reason it is not (a TOML syntax error, a mistyped field). */
export function readHarborConfig(
  dir: string,
): { config: HarborConfig; unknown: string[] } | { error: string } {
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(join(dir, HARBOR_FILES.config), 'utf8'));
  } catch (e) {
    return { error: `not valid TOML: ${(e as Error).message.split('\n')[0]}` };
  }
  const r = HarborConfigSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    return { error: `field "${i.path.join('.')}": ${i.message}` };
  }
  const known: Record<string, string[]> = {
    '': ['version', 'metadata', 'verifier', 'agent', 'environment', 'solution', 'source'],
    verifier: ['timeout_sec', 'env'],
    agent: ['timeout_sec'],
    environment: [
      'build_timeout_sec',
      'docker_image',
      'cpus',
      'memory_mb',
      'storage_mb',
      'gpus',
      'allow_internet',
    ],
    solution: ['env'],
  };
  const unknown: string[] = [];
  for (const [table, keys] of Object.entries(known)) {
    const obj = (table ? (r.data as Record<string, unknown>)[table] : r.data) as
      | Record<string, unknown>
      | undefined;
    for (const k of Object.keys(obj ?? {}))
      if (!keys.includes(k)) unknown.push(table ? `${table}.${k}` : k);
  }
  return { config: r.data, unknown };
}

/** Digest of everything that defines the task (a resumed run refuses a changed one). */
export function harborDigest(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile())
        h.update(`${relative(dir, p)}\0`)
          .update(readFileSync(p))
          .update('\0');
    }
  };
  walk(dir);
  return `sha256:${h.digest('hex')}`;
}

/**
 * The first symlink under a task directory that leads outside it (the directory's own entries
 * included: a `tests` link to /root would mount /root into the verifier), or undefined.
 */
export function linkLeavingTask(dir: string): { rel: string; target: string } | undefined {
  const walk = (d: string): { rel: string; target: string } | undefined => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isSymbolicLink()) {
        const rel = relative(dir, p);
        if (diskEscape(dir, rel, true)) return { rel, target: readlinkSync(p) };
      } else if (e.isDirectory()) {
        const found = walk(p);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(dir);
}

/** One Harbor task, or a one-line reason naming the file and the fix. */
export function loadHarborTask(dir: string): HarborTask {
  const abs = resolve(dir);
  const cfg = readHarborConfig(abs);
  if ('error' in cfg)
    throw new UserError(
      'INVALID_TASK',
      `${join(abs, HARBOR_FILES.config)}: ${cfg.error} (nanobench task check ${abs})`,
    );
  const instructionFile = join(abs, HARBOR_FILES.instruction);
  if (!existsSync(instructionFile))
    throw new UserError(
      'INVALID_TASK',
      `${instructionFile}: missing; a Harbor task gives the agent its instruction.md`,
    );
  if (!existsSync(join(abs, HARBOR_FILES.testScript)))
    throw new UserError(
      'INVALID_TASK',
      `${join(abs, HARBOR_FILES.testScript)}: missing; a Harbor task's verifier is tests/test.sh`,
    );
  const link = linkLeavingTask(abs);
  if (link)
    throw new UserError(
      'INVALID_TASK',
      `${join(abs, link.rel)}: a symlink to ${link.target}, outside the task directory; NanoBench copies and mounts the task's files (tests/ into the verifier, environment/ as the build context): replace it with the file itself`,
    );
  const { config } = cfg;
  if (!config.environment.docker_image && !existsSync(join(abs, HARBOR_FILES.dockerfile)))
    throw new UserError(
      'INVALID_TASK',
      `${abs}: no environment/Dockerfile and no [environment] docker_image in task.toml`,
    );
  const solve = join(abs, HARBOR_FILES.solution);
  const judge = join(abs, HARBOR_FILES.judge);
  const judgeProblem = existsSync(judge) ? judgeConfigProblem(judge) : undefined;
  if (judgeProblem)
    throw new UserError(
      'INVALID_TASK',
      `${abs}: ${judgeProblem.problem}; fix: ${judgeProblem.fix} (nanobench task check ${abs})`,
    );
  return {
    kind: 'harbor',
    task_id: basename(abs),
    dir: abs,
    instruction: readFileSync(instructionFile, 'utf8'),
    config,
    timeouts: { agent_sec: config.agent.timeout_sec, verifier_sec: config.verifier.timeout_sec },
    status: { state: 'active' },
    ...(existsSync(solve) && { solutionDir: join(abs, 'solution') }),
    ...(existsSync(judge) && { judgeDir: judge }),
  };
}

export const isHarborTask = (t: unknown): t is HarborTask =>
  typeof t === 'object' && t !== null && (t as { kind?: unknown }).kind === 'harbor';
