// Task schema v1: the whitepaper's §7 fields plus what the engine needs to run and
// grade a task deterministically. Unknown fields are rejected (strict objects).
import { z } from 'zod';
import { pathEscape } from '../util/contained-path.js';
import { patchPaths } from './patch-paths.js';

export const RESULT_FORMATS = [
  'node-tap', // node --test --test-reporter=tap
  'node-spec', // node --test --test-reporter=spec
  'unittest', // python -m unittest -v
  'junit-xml', // pytest --junitxml, or any JUnit XML file
  'vitest-json', // vitest --reporter=json
  'jest-json', // jest --json
  'tap', // mocha --reporter tap, node-tap, any TAP 13/14 producer
  'exit-code', // no per-test results: the suite is one test that passes on exit 0
] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** Longest agent or verifier timeout, in seconds (a day). */
export const MAX_TIMEOUT_SEC = 86_400;

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-character lowercase git commit SHA');
const patchDigest = z
  .string()
  .regex(
    /^sha256:[0-9a-f]{64}$/,
    '"sha256:" and 64 lowercase hex digits (nanobench task import --reference writes it)',
  );
/**
 * A path inside a root (the workspace, or the dataset directory): no absolute path, no ".." that
 * leaves it. Checked when the task is loaded, before any file operation; the code that uses one
 * checks again on the disk (src/util/contained-path.ts), where a symlink may point outside.
 */
const pathIn = (root: string, example: string) =>
  z
    .string()
    .min(1)
    .superRefine((p, ctx) => {
      const why = pathEscape(p, root);
      if (why)
        ctx.addIssue({
          code: 'custom',
          message: `"${p}" ${why}; name a path inside ${root}, relative to its top (e.g. "${example}")`,
        });
    });
const inWorkspace = (example: string) => pathIn('the repository', example);

const isoDate = z
  .string()
  .datetime({ offset: true, message: 'an ISO-8601 date-time, e.g. 2026-01-15T00:00:00Z' });

export const TestSuiteSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9_-]+$/, 'a short lowercase suite name such as "js" or "py"'),
    language: z.string().min(1),
    command: z.string().min(1).describe('shell command run in the workspace root'),
    format: z.enum(RESULT_FORMATS),
    result_file: inWorkspace('reports/junit.xml')
      .optional()
      .describe(
        'file (relative to the workspace) the runner writes results to, for junit-xml and json formats',
      ),
    test_files: z
      .array(inWorkspace('test/'))
      .default([])
      .describe(
        'paths (or directory prefixes ending in /) the verifier restores to the base state plus test_patch',
      ),
  })
  .strict();
export type TestSuite = z.infer<typeof TestSuiteSchema>;

export const DisputeSchema = z
  .object({
    opened_at: isoDate,
    by: z.string().min(1),
    claim: z.string().min(1),
    resolution: z.string().optional(),
    resolved_at: isoDate.optional(),
  })
  .strict();

/**
 * The lifecycle of a task: it enters as `calibrating` (observed, never part of a release), becomes
 * `active` once calibrated (src/calibration/), and ends `retired` (kept, never run). A task file
 * without a status is active, as before calibration existed.
 */
export const TASK_STATES = ['calibrating', 'active', 'retired'] as const;
export type TaskState = (typeof TASK_STATES)[number];

const ActivationSchema = z
  .object({
    at: isoDate,
    reason: z.string().min(1).describe("the maintainer's approval rationale"),
    content_digest: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, '"sha256:" and 64 lowercase hex digits')
      .describe(
        'the content digest (src/task/digest.ts) the calibration observed; a task whose content changes returns to calibrating',
      ),
    configurations: z
      .array(z.string().min(1))
      .min(1)
      .describe('the configurations (agent build and model) whose observations activated it'),
    observations: z.number().int().positive(),
  })
  .strict();

const SaturationSchema = z
  .object({
    pooled_rate: z.number().min(0).max(1),
    passed: z.number().int().nonnegative(),
    observations: z.number().int().positive(),
    marked_at: isoDate,
    reason: z
      .string()
      .min(1)
      .describe('why the task stays active although it no longer separates models'),
  })
  .strict();

/** A task's environment, for container sandboxes: a Dockerfile to build, or an image to use. */
export const EnvironmentSchema = z
  .object({
    dockerfile: pathIn('the dataset directory', 'environments/node/Dockerfile')

      .optional()
      .describe('path of a Dockerfile relative to the dataset directory; built once and cached'),
    context: pathIn('the dataset directory', 'environments/node')

      .optional()
      .describe("build context relative to the dataset directory (default: the Dockerfile's)"),
    image: z.string().min(1).optional().describe('an image reference, used as it is'),
    cpus: z.number().positive().max(256).optional(),
    memory_mb: z.number().int().positive().optional(),
  })
  .strict()
  .refine((e) => (e.dockerfile === undefined) !== (e.image === undefined), {
    message: 'give exactly one of dockerfile and image',
  });
export type TaskEnvironment = z.infer<typeof EnvironmentSchema>;

export const TaskStatusSchema = z
  .object({
    state: z.enum(TASK_STATES),
    reason: z.string().optional().describe('why the task was retired'),
    retired_in_version: z.string().optional(),
    activated: ActivationSchema.optional().describe(
      'written by nanobench task activate: the calibration that made the task active',
    ),
    saturated: SaturationSchema.optional().describe(
      'written by nanobench task keep-saturated: a pooled solve rate >= 0.9, and why it stays active',
    ),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.state === 'retired' && !(s.reason !== undefined && s.reason.length > 0))
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'a retired task needs a reason' });
    if (s.state === 'calibrating')
      for (const k of ['activated', 'saturated', 'retired_in_version'] as const)
        if (s[k] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `a calibrating task has no "${k}" yet; remove it (nanobench task recalibrate does)`,
          });
  });

/** One requirement of a PR task: a group of its fail_to_pass tests that must all pass. */
export const CriterionSchema = z
  .object({
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]*$/,
        'lowercase letters, digits, "_" or "-" (e.g. "custom-ellipsis")',
      ),
    description: z
      .string()
      .min(1)
      .describe('the requirement, as the problem statement asks for it'),
    tests: z
      .array(z.string().min(1))
      .min(1)
      .describe('fail_to_pass tests that must all pass for the criterion to be met'),
  })
  .strict();
export type CriterionDecl = z.infer<typeof CriterionSchema>;

/** The criterion every PR task has: nothing that passed at base breaks (its pass_to_pass tests). */
export const PASS_TO_PASS_CRITERION = 'pass_to_pass';

export const TaskSchema = z
  .object({
    schema_version: z.literal(1),
    task_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-"'),
    repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'owner/name'),
    repo_url: z.string().min(1),
    issue_url: z.string().nullable().default(null),
    pr_url: z.string().nullable().default(null),
    base_commit: sha,
    languages: z.array(z.string().min(1)).min(1),
    domain: z.string().min(1),
    complexity_tier: z.number().int().min(1).max(4),
    task_type: z.enum(['bug_fix', 'feature', 'refactor', 'performance', 'other']),
    reasoning_category: z.string().min(1),
    token_estimate: z.number().int().nonnegative(),
    problem_statement: z.string().min(1),
    required_files: z.array(inWorkspace('src/parse.ts')).min(1),
    // A task holds its patches either inline (hand-written fixture tasks) or as a reference to
    // the PR commit they are derived from when the task is loaded (tasks of real repositories:
    // no upstream code in the dataset). src/task/patches.ts does the deriving.
    ground_truth_patch: z
      .string()
      .min(1)
      .optional()
      .describe(
        'inline form: the golden patch WITHOUT test files; never shown to the agent (reference tasks derive it from pr_commit)',
      ),
    test_patch: z
      .string()
      .optional()
      .describe(
        "inline form: the PR's test changes; applied by the verifier only (reference tasks derive it from pr_commit)",
      ),
    pr_commit: sha
      .optional()
      .describe("the PR's squash or merge commit; its first parent is base_commit"),
    test_paths: z
      .array(inWorkspace('test/parse.test.ts'))
      .optional()
      .describe(
        'reference form: the paths the PR changes that are tests; their diff (base_commit..pr_commit) is test_patch',
      ),
    excluded_paths: z
      .array(inWorkspace('CHANGELOG.md'))
      .optional()
      .describe(
        'reference form: paths the PR changes that are in neither patch (changelog, docs, generated files)',
      ),
    patch_digests: z
      .object({ ground_truth_patch: patchDigest, test_patch: patchDigest })
      .strict()
      .optional()
      .describe('reference form: sha256 of each derived patch; a different derivation is refused'),
    test_command: z
      .string()
      .min(1)
      .describe('the whole test command, as the whitepaper records it'),
    test_suites: z.array(TestSuiteSchema).min(1),
    fail_to_pass: z.array(z.string()).default([]),
    pass_to_pass: z.array(z.string()).default([]),
    install_command: z.string().nullable().default(null),
    timeouts: z
      .object({
        // At most a day: longer does not fit a timer (Node fires one over 2^31-1 ms at once).
        agent_sec: z.number().positive().max(MAX_TIMEOUT_SEC).default(900),
        verifier_sec: z.number().positive().max(MAX_TIMEOUT_SEC).default(300),
      })
      .strict()
      .default({}),
    environment: EnvironmentSchema.optional().describe(
      "the toolchain the task needs, for the container sandboxes (--sandbox podman|docker); without it they use the run's --image",
    ),
    contributor: z.string().min(1),
    merged_at: isoDate,
    status: TaskStatusSchema.default({ state: 'active' }),
    disputes: z.array(DisputeSchema).default([]),
    criteria: z
      .array(CriterionSchema)
      .optional()
      .describe(
        "the evaluator's criteria: groups of fail_to_pass tests, each one requirement (without it: one criterion per suite's fail_to_pass); pass_to_pass is always a criterion of its own",
      ),
  })
  .strict()
  .superRefine((t, ctx) => {
    patchForm(t, ctx);
    criteriaShape(t.criteria ?? [], ctx);
    const names = t.test_suites.map((s) => s.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup)
      ctx.addIssue({
        code: 'custom',
        path: ['test_suites'],
        message: `suite name "${dup}" is used twice`,
      });
    for (const [field, ids] of [
      ['fail_to_pass', t.fail_to_pass],
      ['pass_to_pass', t.pass_to_pass],
    ] as const) {
      ids.forEach((id, i) => {
        const suite = id.split('::')[0];
        if (!names.includes(suite))
          ctx.addIssue({
            code: 'custom',
            path: [field, i],
            message: `test id must start with a suite name and "::" (suites: ${names.join(', ')})`,
          });
      });
    }
  });

/**
 * Criteria ids are unique, never the reserved pass_to_pass, and no test is in two criteria.
 * Whether they cover fail_to_pass is checked where they are used (src/score/criteria.ts):
 * `validate --write` may re-record the lists before the criteria are updated.
 */
function criteriaShape(criteria: CriterionDecl[], ctx: z.RefinementCtx): void {
  const owner = new Map<string, string>();
  criteria.forEach((c, i) => {
    if (c.id === PASS_TO_PASS_CRITERION)
      ctx.addIssue({
        code: 'custom',
        path: ['criteria', i, 'id'],
        message: `"${PASS_TO_PASS_CRITERION}" is the criterion every task has (its pass_to_pass tests); name this one otherwise`,
      });
    if (criteria.findIndex((d) => d.id === c.id) !== i)
      ctx.addIssue({
        code: 'custom',
        path: ['criteria', i, 'id'],
        message: `criterion "${c.id}" is declared twice`,
      });
    c.tests.forEach((id, j) => {
      const prev = owner.get(id);
      if (prev !== undefined && prev !== c.id)
        ctx.addIssue({
          code: 'custom',
          path: ['criteria', i, 'tests', j],
          message: `"${id}" is already in criterion "${prev}"; a test belongs to one criterion`,
        });
      owner.set(id, c.id);
    });
  });
}

/** Inline patches, or pr_commit + test_paths + patch_digests to derive them from: never both. */
function patchForm(
  t: {
    ground_truth_patch?: string;
    test_patch?: string;
    pr_commit?: string;
    test_paths?: string[];
    excluded_paths?: string[];
    patch_digests?: object;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [path], message });
  if (t.ground_truth_patch !== undefined) {
    for (const k of ['ground_truth_patch', 'test_patch'] as const)
      for (const p of patchPaths(t[k] ?? '')) {
        const why = pathEscape(p, 'the repository');
        if (why)
          issue(
            k,
            `names the file "${p}", which ${why}; a patch changes files inside the repository only`,
          );
      }
    if (t.test_patch === undefined)
      issue(
        'test_patch',
        'missing; an inline task needs test_patch too (the empty string if none)',
      );
    for (const k of ['test_paths', 'excluded_paths', 'patch_digests'] as const)
      if (t[k] !== undefined)
        issue(
          k,
          'belongs to reference tasks, whose patches are derived from pr_commit; remove it, or remove the inline ground_truth_patch and test_patch',
        );
    return;
  }
  if (t.test_patch !== undefined)
    issue('ground_truth_patch', 'missing; an inline task needs ground_truth_patch too');
  const missing = (['pr_commit', 'test_paths', 'patch_digests'] as const).filter(
    (k) => t[k] === undefined,
  );
  for (const k of missing)
    issue(
      k,
      'missing; a task without inline patches derives them from pr_commit, test_paths and patch_digests (nanobench task import --reference writes all three)',
    );
}

export type Task = z.infer<typeof TaskSchema>;
export type TaskInput = z.input<typeof TaskSchema>;

/** Test ids are "<suite>::<id reported by the runner>". */
export function testId(suite: string, id: string): string {
  return `${suite}::${id}`;
}
