// A deliberately naive harness: run an agent script in a plain checkout, apply test_patch and run
// the suites as they are, with none of NanoBench's hardening. The adversarial tests use it to
// show that each attack really earns reward when its defence is missing, so that "NanoBench
// gives 0" means something.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../../src/task/schema.js';
import { parseSuite } from '../../src/verify/parsers/index.js';
import { EXAMPLES, varTempDir } from './cli.js';

export interface NaiveRun {
  dir: string;
  /** fail_to_pass tests that passed. */
  f2pPassed: number;
  f2pTotal: number;
}

export function checkout(task: Task): string {
  const root = varTempDir('nb-naive-');
  const dir = join(root, 'ws');
  const bundle = join(EXAMPLES, 'mirror', `${task.repo}.bundle`);
  execFileSync('git', ['clone', '-q', bundle, dir]);
  execFileSync('git', ['checkout', '-q', task.base_commit], { cwd: dir });
  return dir;
}

export function naiveRun(task: Task, script: string, env: Record<string, string> = {}): NaiveRun {
  const dir = checkout(task);
  const home = join(dir, '..', 'scratch', 'home');
  const testHome = join(dir, '..', 'scratch', 'verify-home');
  mkdirSync(home, { recursive: true });
  const agent = spawnSync('bash', [script], {
    cwd: dir,
    env: { ...process.env, ...env, HOME: home, NANOBENCH_TASK_ID: task.task_id },
    encoding: 'utf8',
  });
  if (agent.status !== 0) throw new Error(`${script} failed: ${agent.stderr}`);
  execFileSync('git', ['apply', '-'], { cwd: dir, input: task.test_patch });
  mkdirSync(testHome, { recursive: true });
  const passed = new Set<string>();
  for (const s of task.test_suites) {
    const r = spawnSync('/bin/sh', ['-c', s.command], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: testHome, LANG: 'C.UTF-8', CI: '1' },
      encoding: 'utf8',
    });
    const file = s.result_file && join(dir, s.result_file);
    const parsed = parseSuite(s.format, {
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: r.status,
      resultFile: file && existsSync(file) ? readFileSync(file, 'utf8') : undefined,
      workspace: dir,
    });
    for (const t of parsed.tests) if (t.outcome === 'passed') passed.add(`${s.name}::${t.id}`);
  }
  return {
    dir,
    f2pPassed: task.fail_to_pass.filter((id) => passed.has(id)).length,
    f2pTotal: task.fail_to_pass.length,
  };
}
