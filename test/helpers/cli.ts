// Run the built CLI (dist/) the way a user does: a child process, stdout and stderr apart.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/cli/main.js');
export const EXAMPLES = join(ROOT, 'examples');
export const AGENTS = join(ROOT, 'test/fixtures/agents');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A new directory under the system tmp (the test file's own TMPDIR: test/support/temp-dirs.ts). */
export function tempDir(prefix = 'nb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A new directory outside /tmp, for what a sandbox must see at its real path or where an escape
 * must be observable (bwrap and none-as-nobody give their processes a private /tmp). Under the
 * test file's own directory below /var/tmp, removed with it (test/support/temp-dirs.ts).
 */
export function varTempDir(prefix: string): string {
  return mkdtempSync(join(process.env.NANOBENCH_TEST_VAR_TMP ?? '/var/tmp', prefix));
}

/**
 * Where a browser test saves a screenshot: the directory NANOBENCH_TEST_SCREENSHOTS names, to look
 * at them afterwards; else the test file's temporary directory, removed with it.
 */
export function screenshotPath(name: string): string {
  return join(process.env.NANOBENCH_TEST_SCREENSHOTS ?? tmpdir(), name);
}

/** The unit project (npm run test:unit) runs without a build: its tests must not spawn the CLI. */
export function assertNotUnitTier(what: string): void {
  if (process.env.NANOBENCH_TEST_TIER === 'unit')
    throw new Error(`${what}: move this test file to the e2e project (E2E in vitest.config.ts)`);
}

export function nanobench(
  args: string[],
  /** `as`: an argv prefix the CLI runs under (e.g. setpriv to another user). */
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; as?: string[] } = {},
): CliResult {
  assertNotUnitTier('this test runs the built CLI');
  const argv = [...(opts.as ?? []), process.execPath, CLI, ...args];
  const r = spawnSync(argv[0], argv.slice(1), {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // A command that should have refused at once is killed (status null) instead of hanging.
    ...(opts.timeoutMs !== undefined && { timeout: opts.timeoutMs, killSignal: 'SIGKILL' }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Run the CLI without blocking this process, e.g. while a stand-in server in the test answers
 * it; resolves when it exits. `ms` is how long it took.
 */
export function nanobenchAwait(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult & { ms: number }> {
  assertNotUnitTier('this test runs the built CLI');
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    p.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

/** Start the CLI without waiting (for kill-and-resume tests). */
export function nanobenchAsync(args: string[], opts: { cwd?: string } = {}) {
  assertNotUnitTier('this test runs the built CLI');
  return spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface TrialJson {
  task_id: string;
  agent: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  status: string;
  score: number | null;
  label: string | null;
  confidence_level: string | null;
  tests: { passed: number; failed: number; total: number };
  files_changed: string[];
  flags: string[];
  error: string | null;
  exit_kind: string | null;
  explanation?: string | null;
  /** Per-trial telemetry (schemas/results.schema.json). */
  files_read?: {
    count: number;
    bytes: number;
    paths: string[];
    required: string[];
    required_total: number;
  } | null;
  tokens?: { input: number; output: number; total: number } | null;
}

export function runJson(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; as?: string[] } = {},
): { run_id: string; trials: TrialJson[]; summary: Record<string, unknown> } {
  const r = nanobench([...args, '--json'], opts);
  if (r.code !== 0) throw new Error(`nanobench ${args.join(' ')} exited ${r.code}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}
