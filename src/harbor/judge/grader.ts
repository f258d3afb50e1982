// Running a task's grader (judge/score.py, judge/final.py: `grade(path) -> {"reward", "reason"}`)
// on one submission. The judge never trusts it: a crash, a timeout, or a reward that is not a
// finite number (NaN, None, a string, a boolean) is a failure of the grader, not a grade: the
// trial becomes an infra error of the grader (stage `grader`), never `no_reward 0.0` for what
// may have been a valid submission. A malformed submission is the grader's to score 0 with a
// reason (its grader_tests.json cases say so; `nanobench task check --graders` runs them). Two
// runners: in a container of the judge's image (trials: the grader may run what the agent
// submitted), and on the host's python3 (the offline grader tests of our own tasks, and `nanobench
// task check`'s grader cases).
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { run } from '../../util/process.js';

export type GraderName = 'score' | 'final';

export interface Grade {
  reward: number;
  reason: string;
}

/** How a grader failed to grade: the infra error's code, and what it printed or returned. */
export interface GraderFailure {
  failure: 'crashed' | 'timed_out' | 'bad_reward' | 'missing';
  reason: string;
}

export type GradeResult = Grade | GraderFailure;

export const isGraderFailure = (g: GradeResult): g is GraderFailure => 'failure' in g;

/** Runs grader `name` on the submission file (null: nothing was submitted). */
export type GraderRunner = (name: GraderName, submission: string | null) => Promise<GradeResult>;

/**
 * Imports the grader by path and prints its verdict as one JSON line. `-I` (isolated mode): no
 * user site, no PYTHON* variables, and the grader's directory is put on the path by us only.
 */
export const GRADER_MAIN = `import importlib.util, json, math, pathlib, sys
path, sub = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
sys.path.insert(0, str(pathlib.Path(path).parent))
spec = importlib.util.spec_from_file_location("nanobench_grader", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = mod.grade(pathlib.Path(sub) if sub else None)
reward = out.get("reward") if isinstance(out, dict) else None
if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
    print("NANOBENCH_BAD_GRADE " + json.dumps({"got": repr(out)[:200]}))
else:
    print("NANOBENCH_GRADE " + json.dumps({"reward": reward, "reason": str(out.get("reason", ""))}))
`;

/** The verdict in a grader's output, or how the grader failed to give one. */
export function readGrade(r: {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}): GradeResult {
  if (r.timedOut) return { failure: 'timed_out', reason: 'the grader timed out' };
  const line = r.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('NANOBENCH_GRADE ') || l.startsWith('NANOBENCH_BAD_GRADE '));
  if (r.exitCode === 0 && line?.startsWith('NANOBENCH_BAD_GRADE ')) {
    let got = '?';
    try {
      got = String(JSON.parse(line.slice('NANOBENCH_BAD_GRADE '.length)).got);
    } catch {}
    return {
      failure: 'bad_reward',
      reason: `grade() returned ${got}: its "reward" must be a finite number`,
    };
  }
  if (r.exitCode === 0 && line) {
    try {
      const g = JSON.parse(line.slice('NANOBENCH_GRADE '.length)) as Grade;
      if (typeof g.reward === 'number' && Number.isFinite(g.reward))
        return { reward: g.reward, reason: String(g.reason ?? '') };
    } catch {}
  }
  const last = r.stderr.trim().split('\n').pop() ?? '';
  return {
    failure: 'crashed',
    reason: `the grader failed (exit ${r.exitCode}${last ? `: ${last.slice(0, 300)}` : ''})`,
  };
}

/** The grader on the host's python3 (trusted graders of our own tasks, tests, task check). */
export function hostGrader(judgeDir: string, timeoutSec = 60): GraderRunner {
  return async (name, submission) => {
    const file = join(judgeDir, `${name}.py`);
    if (!existsSync(file)) return { failure: 'missing', reason: `judge/${name}.py is missing` };
    // -B: no __pycache__ written into the task's judge directory (-I ignores PYTHON* variables).
    const r = await run(
      'python3',
      ['-I', '-B', '-c', GRADER_MAIN, file, ...(submission ? [submission] : [])],
      {
        cwd: judgeDir,
        timeoutMs: timeoutSec * 1000,
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
      },
    );
    return readGrade(r);
  };
}

/** argv that runs the grader in a container: grader code and submission mounted read-only. */
export function graderArgv(o: { judgeDir: string; name: GraderName; submission: string | null }): {
  mounts: { source: string; target: string; readOnly: true }[];
  command: string[];
} {
  const mounts = [{ source: o.judgeDir, target: '/judge', readOnly: true as const }];
  const args = ['python3', '-I', '-c', GRADER_MAIN, `/judge/${o.name}.py`];
  if (o.submission) {
    mounts.push({ source: dirname(o.submission), target: '/submission', readOnly: true });
    args.push(`/submission/${basename(o.submission)}`);
  }
  return { mounts, command: args };
}

/**
 * The grader in a container of the judge's image: no network, the image read-only, every
 * capability dropped, the grader code and the one submission mounted read-only.
 */
export function containerGrader(
  engine: import('../../workspace/sandbox/engine.js').Engine,
  image: string,
  judgeDir: string,
  timeoutSec = 60,
): GraderRunner {
  return async (name, submission) => {
    if (!existsSync(join(judgeDir, `${name}.py`)))
      return { failure: 'missing', reason: `judge/${name}.py is missing` };
    const g = graderArgv({ judgeDir, name, submission });
    const args = ['run', '--rm', ...engine.runtimeArgs, '--network', 'none', '--cap-drop', 'ALL'];
    args.push('--security-opt', 'no-new-privileges', ...engine.ulimits, '--pids-limit', '256');
    args.push('--read-only', '--tmpfs', '/tmp:rw,mode=1777', '-e', 'LANG=C.UTF-8');
    // Podman kills a container that runs past its timeout even when its client is gone.
    if (engine.name === 'podman') args.push('--pull', 'never', '--timeout', String(timeoutSec + 5));
    for (const m of g.mounts) args.push('-v', `${m.source}:${m.target}:ro`);
    args.push('-w', '/judge', '--entrypoint', g.command[0], image, ...g.command.slice(1));
    const r = await run(engine.bin, args, { cwd: '/', timeoutMs: timeoutSec * 1000 });
    return readGrade(r);
  };
}
