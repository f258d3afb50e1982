// `nanobench task check DIR`: the structural verdict on Harbor tasks, without building or running
// anything. Each check judges one part of the task, independently of the others, so a broken
// task fails exactly the checks it breaks. It cannot say the verifier is right: the controls
// (the oracle must earn the full reward, nop nothing) give that verdict, in a container.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  HARBOR_FILES,
  judgeConfigProblem,
  linkLeavingTask,
  readHarborConfig,
} from '../task/harbor.js';
import { GraderTestsSchema } from './judge/grader-tests.js';

export const CHECK_IDS = [
  'task.toml',
  'instruction',
  'environment',
  'tests',
  'solution',
  'judge',
  'leaks',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export interface CheckResult {
  check: CheckId;
  ok: boolean;
  reason: string;
  fix?: string;
}

export interface TaskCheck {
  dir: string;
  task_id: string;
  valid: boolean;
  checks: CheckResult[];
}

const pass = (check: CheckId, reason: string): CheckResult => ({ check, ok: true, reason });
const fail = (check: CheckId, reason: string, fix: string): CheckResult => ({
  check,
  ok: false,
  reason,
  fix,
});

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

function configCheck(dir: string): CheckResult {
  if (!existsSync(join(dir, HARBOR_FILES.config)))
    return fail(
      'task.toml',
      'task.toml is missing',
      'add task.toml (version, [agent], [verifier], [environment])',
    );
  const r = readHarborConfig(dir);
  if ('error' in r)
    return fail(
      'task.toml',
      r.error,
      'fix task.toml: timeouts are positive numbers of seconds, cpus and memory_mb positive',
    );
  const notes = r.unknown.length ? `; not read by NanoBench: ${r.unknown.join(', ')}` : '';
  return pass(
    'task.toml',
    `version ${r.config.version}, agent ${r.config.agent.timeout_sec}s, verifier ${r.config.verifier.timeout_sec}s${notes}`,
  );
}

function instructionCheck(dir: string): CheckResult {
  const f = join(dir, HARBOR_FILES.instruction);
  if (!existsSync(f))
    return fail(
      'instruction',
      'instruction.md is missing',
      'write the task for the agent in instruction.md',
    );
  if (readFileSync(f, 'utf8').trim() === '')
    return fail(
      'instruction',
      'instruction.md is empty',
      'write the task for the agent in instruction.md',
    );
  return pass('instruction', 'instruction.md is there');
}

function environmentCheck(dir: string): CheckResult {
  const cfg = readHarborConfig(dir);
  const image = 'config' in cfg ? cfg.config.environment.docker_image : undefined;
  const df = join(dir, HARBOR_FILES.dockerfile);
  if (!existsSync(df)) {
    if (image) return pass('environment', `image ${image} (its WORKDIR is checked when it runs)`);
    return fail(
      'environment',
      'no environment/Dockerfile and no [environment] docker_image',
      "add environment/Dockerfile (FROM an image with the task's toolchain, WORKDIR /app, COPY what the agent starts from)",
    );
  }
  const lines = readFileSync(df, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  if (!lines.some((l) => /^FROM\s/i.test(l)))
    return fail(
      'environment',
      'environment/Dockerfile has no FROM',
      'start the Dockerfile with FROM <image>',
    );
  const workdirs = lines.filter((l) => /^WORKDIR\s/i.test(l)).map((l) => l.split(/\s+/)[1]);
  const last = workdirs.pop();
  if (!last || last === '/')
    return fail(
      'environment',
      "environment/Dockerfile sets no WORKDIR (or WORKDIR /): the agent's workspace is the WORKDIR",
      'add e.g. "WORKDIR /app" after FROM',
    );
  return pass('environment', `environment/Dockerfile, WORKDIR ${last}`);
}

function testsCheck(dir: string): CheckResult {
  const sh = join(dir, HARBOR_FILES.testScript);
  if (!existsSync(sh) || !statSync(sh).isFile())
    return fail(
      'tests',
      'tests/test.sh is missing',
      'add tests/test.sh: it runs after the agent and writes the reward',
    );
  const mentions = files(join(dir, 'tests')).some((f) =>
    readFileSync(f, 'utf8').includes('/logs/verifier'),
  );
  if (!mentions)
    return fail(
      'tests',
      'nothing under tests/ writes to /logs/verifier: no reward would be read',
      'write the reward to /logs/verifier/reward.txt (one number) or reward.json (named metrics)',
    );
  return pass('tests', 'tests/test.sh writes under /logs/verifier');
}

function solutionCheck(dir: string): CheckResult {
  const sol = join(dir, 'solution');
  if (!existsSync(sol)) return pass('solution', 'no solution/ (the oracle control cannot run)');
  if (!existsSync(join(dir, HARBOR_FILES.solution)))
    return fail(
      'solution',
      'solution/ has no solve.sh',
      'add solution/solve.sh, the reference solution the oracle runs',
    );
  return pass('solution', 'solution/solve.sh is there');
}

function judgeCheck(dir: string): CheckResult {
  const j = join(dir, HARBOR_FILES.judge);
  if (!existsSync(j)) return pass('judge', 'no judge/ (no hidden grader)');
  const config = judgeConfigProblem(j);
  if (config) return fail('judge', config.problem, config.fix);
  if (!existsSync(join(j, 'score.py')))
    return fail(
      'judge',
      'judge/ has no score.py',
      'add judge/score.py with grade(path) -> {"reward": float, "reason": str}',
    );
  const tests = join(j, 'grader_tests.json');
  if (!existsSync(tests))
    return fail(
      'judge',
      'judge/ has no grader_tests.json',
      'add one case per rule of the grader: {"cases": [{"submission": ..., "reward": 0.0, "why": "..."}]}',
    );
  try {
    const t = GraderTestsSchema.parse(JSON.parse(readFileSync(tests, 'utf8')));
    if (t.final_cases.length && !existsSync(join(j, 'final.py')))
      return fail(
        'judge',
        'grader_tests.json has final_cases but there is no judge/final.py',
        'add judge/final.py or drop final_cases',
      );
    return pass(
      'judge',
      `judge.json, score.py${existsSync(join(j, 'final.py')) ? ', final.py' : ''}, ${t.cases.length + t.final_cases.length} grader case(s)`,
    );
  } catch (e) {
    return fail(
      'judge',
      `judge/grader_tests.json: ${(e as Error).message.split('\n')[0].slice(0, 200)}`,
      'each case: submission, reward (a number), why (a sentence)',
    );
  }
}

/**
 * The agent's image is built from environment/: a copy of a test, the solution or the grader's
 * code there is a leak. Not a leak: a test file that is the same file at the same place in the
 * agent's repository (its path's last two parts match: an exported task's tests/files restore the
 * public tests at base along with the new ones), and a judge's data (training points the agent
 * gets on purpose; its hidden data is the task author's to keep out).
 */
function leaksCheck(dir: string): CheckResult {
  const link = linkLeavingTask(dir);
  if (link)
    return fail(
      'leaks',
      `${link.rel} is a symlink to ${link.target}, outside the task directory: NanoBench would copy or mount what it points at`,
      'replace the symlink with the file itself',
    );
  const digest = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
  const hidden = new Map<string, { rel: string; test: boolean }[]>();
  const add = (f: string, test: boolean) => {
    if (statSync(f).size === 0) return;
    const k = digest(f);
    hidden.set(k, [...(hidden.get(k) ?? []), { rel: relative(dir, f), test }]);
  };
  for (const f of files(join(dir, 'tests'))) add(f, true);
  for (const f of files(join(dir, 'solution'))) add(f, false);
  for (const f of files(join(dir, 'judge')).filter((x) => x.endsWith('.py'))) add(f, false);
  const tail = (p: string) => p.split('/').slice(-2).join('/');
  for (const f of files(join(dir, HARBOR_FILES.environment))) {
    const rel = relative(dir, f);
    const twin = hidden
      .get(digest(f))
      ?.find((h) => !(h.test && h.rel.split('/').length > 2 && tail(h.rel) === tail(rel)));
    if (twin)
      return fail(
        'leaks',
        `${rel} is a copy of ${twin.rel}: the agent's image would hold it`,
        "keep tests, solutions and graders out of environment/ (the build context of the agent's image)",
      );
  }
  return pass(
    'leaks',
    "environment/ holds no copy of tests/, solution/ or the judge's code; no symlink leads outside the task",
  );
}

export function checkHarborTask(dir: string): TaskCheck {
  const checks = [
    configCheck(dir),
    instructionCheck(dir),
    environmentCheck(dir),
    testsCheck(dir),
    solutionCheck(dir),
    judgeCheck(dir),
    leaksCheck(dir),
  ];
  return {
    dir,
    task_id: dir.split('/').filter(Boolean).pop() ?? dir,
    valid: checks.every((c) => c.ok),
    checks,
  };
}

const looksLikeTask = (d: string) =>
  ['task.toml', 'instruction.md', 'environment', 'tests'].some((f) => existsSync(join(d, f)));

/** The task directories a `task check` argument names: itself, or the tasks inside it. */
export function checkTargets(path: string): string[] {
  if (!existsSync(path) || !statSync(path).isDirectory()) return [];
  if (looksLikeTask(path)) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() && looksLikeTask(join(path, d.name)))
    .map((d) => join(path, d.name))
    .sort();
}
