// Issue 22 §4: nothing that a task file or an agent supplies reaches outside. Every path a task
// names is refused when it leaves its root, before any file operation (one test per field), and
// an agent, whichever kind and whichever sandbox, never sees the harness's secrets.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { EXAMPLES, nanobench, ROOT, runJson, tempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';
import { asUnprivileged, isRoot, unprivilegedDir } from '../helpers/processes.js';
import { noBwrap } from '../sandbox/require-bwrap.js';

const MIRROR = join(EXAMPLES, 'mirror');
const TEXTKIT = join(EXAMPLES, 'tasks', 'textkit-001.json');
const REFERENCE = join(ROOT, 'datasets', 'nanobench-v1', 'tasks', 'click-2796.json');
const read = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

/** A dataset holding one task: `from` changed by `edit`; returns the dataset and the task file. */
// biome-ignore lint/suspicious/noExplicitAny: a task's JSON, edited freely by each case
function dataset(from: string, edit: (t: Record<string, any>) => void) {
  const dir = tempDir();
  chmodSync(dir, 0o755); // a run as nobody reads it too
  mkdirSync(join(dir, 'tasks'));
  const t = read(from);
  t.task_id = `${t.task_id}-edited`;
  edit(t);
  const file = join(dir, 'tasks', 'task.json');
  writeFileSync(file, JSON.stringify(t, null, 2));
  return { dir, file };
}

/** `run` refuses the dataset in one line naming the file, the field and the fix; exit 2. */
function refused(dir: string, file: string, field: string, why: RegExp, root = tempDir()) {
  const r = nanobench([
    'run',
    dir,
    '--agent',
    'nop',
    '--sandbox',
    'none',
    '--mirror',
    MIRROR,
    '--db',
    join(root, 'r.sqlite'),
  ]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(`nanobench: ${file}: field "${field}": `);
  expect(r.stderr).toMatch(why);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  // Refused before anything ran: no run was stored.
  expect(existsSync(join(root, 'workspaces'))).toBe(false);
}

const FIX =
  /; name a path inside the (repository|dataset directory), relative to its top \(e\.g\. "[^"]+"\)/;

describe('every path a task names is checked before any file operation', () => {
  it('test_suites[].result_file: "../../../victim" (the removal that reached outside) is refused; the file stays', () => {
    // The workspace is <root>/workspaces/<run>/<trial>: three levels up is the results root.
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.test_suites[0].result_file = '../../../victim';
    });
    const root = tempDir();
    const victim = join(root, 'victim');
    writeFileSync(victim, 'precious\n');
    refused(
      dir,
      file,
      'test_suites.0.result_file',
      /"\.\.\/\.\.\/\.\.\/victim" leaves the repository through "\.\."/,
      root,
    );
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('test_suites[].test_files[]: an absolute path', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.test_suites[0].test_files = ['test/', '/etc'];
    });
    refused(dir, file, 'test_suites.0.test_files.1', /"\/etc" is absolute/);
  });

  it('required_files[]: a path through ".."', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.required_files = ['src/../../outside.js'];
    });
    refused(dir, file, 'required_files.0', /leaves the repository through "\.\."/);
  });

  it('test_paths[] (a reference task): a path through ".."', () => {
    const { dir, file } = dataset(REFERENCE, (t) => {
      t.test_paths = [...t.test_paths, '../victim'];
    });
    refused(dir, file, `test_paths.${read(REFERENCE).test_paths.length}`, /"\.\.\/victim" leaves/);
  });

  it('excluded_paths[] (a reference task): an absolute path', () => {
    const { dir, file } = dataset(REFERENCE, (t) => {
      t.excluded_paths = ['/root/.ssh'];
    });
    refused(dir, file, 'excluded_paths.0', /"\/root\/\.ssh" is absolute/);
  });

  it('environment.dockerfile: a path out of the dataset directory', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.environment = { dockerfile: '../Dockerfile' };
    });
    refused(dir, file, 'environment.dockerfile', /leaves the dataset directory through "\.\."/);
  });

  it('environment.context: an absolute build context (it would go into the image)', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.environment = { dockerfile: 'environments/x/Dockerfile', context: '/' };
    });
    refused(dir, file, 'environment.context', /"\/" is absolute/);
  });

  it('environment.dockerfile through a symlink of the dataset that leads outside', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.environment = { dockerfile: 'environments/x/Dockerfile' };
    });
    const outside = tempDir();
    writeFileSync(join(outside, 'Dockerfile'), 'FROM scratch\n');
    mkdirSync(join(dir, 'environments'));
    symlinkSync(outside, join(dir, 'environments', 'x'));
    const r = nanobench(['run', dir, '--agent', 'nop', '--db', join(tempDir(), 'r.sqlite')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nanobench: ${file}: field "environment.dockerfile": "environments/x/Dockerfile" goes through the symlink environments/x, which points outside; keep the environment inside the dataset directory ${dir}\n`,
    );
  });

  it('an inline test_patch or ground_truth_patch that names a file outside the repository', () => {
    const evil =
      'diff --git a/../../victim b/../../victim\n--- a/../../victim\n+++ b/../../victim\n@@ -1 +1 @@\n-a\n+b\n';
    for (const field of ['test_patch', 'ground_truth_patch']) {
      const { dir, file } = dataset(TEXTKIT, (t) => {
        t[field] = evil;
      });
      refused(dir, file, field, /names the file "\.\.\/\.\.\/victim", which leaves the repository/);
    }
  });

  it('the fix in each message says what to write instead', () => {
    const { dir, file } = dataset(TEXTKIT, (t) => {
      t.test_suites[0].result_file = '/tmp/r.xml';
    });
    refused(dir, file, 'test_suites.0.result_file', FIX);
  });

  it('a Harbor task with a symlink leading out of its directory (tests/ -> elsewhere) is refused, and task check says so', () => {
    const dir = tempDir();
    const task = join(dir, 'median');
    cpSync(join(EXAMPLES, 'harbor', 'median'), task, { recursive: true });
    const outside = tempDir();
    cpSync(join(task, 'tests'), outside, { recursive: true });
    rmSync(join(task, 'tests'), { recursive: true });
    symlinkSync(outside, join(task, 'tests'));
    const r = nanobench(['run', dir, '--agent', 'nop', '--db', join(tempDir(), 'r.sqlite')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nanobench: ${join(task, 'tests')}: a symlink to ${outside}, outside the task directory; NanoBench copies and mounts the task's files (tests/ into the verifier, environment/ as the build context): replace it with the file itself\n`,
    );
    const check = nanobench(['task', 'check', task]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`tests is a symlink to ${outside}, outside the task directory`);
  });
});

// ---- the agent's environment ----

const SECRETS = {
  OPENAI_API_KEY: 'sk-nb-test-openai-0001',
  ANTHROPIC_API_KEY: 'sk-ant-nb-test-0002',
  GITHUB_TOKEN: 'ghp_nbtest0003',
  AWS_SECRET_ACCESS_KEY: 'nb-aws-secret-0004',
  MY_SERVICE_KEY: 'nb-service-key-0005',
};

/** A dataset whose suite prints its environment before running the tests. */
function envPrintingSuite(): string {
  return dataset(TEXTKIT, (t) => {
    t.task_id = 'textkit-001';
    t.test_suites[0].command = `env >&2; ${t.test_suites[0].command}`;
  }).dir;
}

function trialsOf(db: string, runId: string): TrialRecord[] {
  const store = Store.open(db, { reader: true });
  try {
    return store.trials(runId);
  } finally {
    store.close();
  }
}

/** Everything a trial left in its artifacts, as text. */
function artifacts(t: TrialRecord): string {
  const dir = t.artifacts_dir!;
  return readdirSync(dir)
    .map((f) => `--- ${f}\n${readFileSync(join(dir, f), 'utf8')}`)
    .join('\n');
}

function expectNoSecrets(text: string) {
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(text, name).not.toContain(value);
    expect(text, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
  }
}

const agentDir = tempDir();
chmodSync(agentDir, 0o755);
const AGENT = join(agentDir, 'print-env.sh');
writeFileSync(AGENT, '#!/bin/sh\necho "--- agent env"\nenv\n', { mode: 0o755 });
// Plain none needs a non-root NanoBench: that run goes as nobody, in a root nobody owns.
const plainRoot = unprivilegedDir('nb-env-plain-');

const DRIVERS: { name: string; sandbox: string; kind: string; unprivileged?: boolean }[] = [
  ...(noBwrap ? [] : [{ name: 'bwrap', sandbox: 'bwrap', kind: 'bwrap' }]),
  ...(isRoot
    ? [
        { name: 'none-as-nobody', sandbox: 'none', kind: 'none-as-nobody' },
        { name: 'none', sandbox: 'none', kind: 'none', unprivileged: true },
      ]
    : [{ name: 'none', sandbox: 'none', kind: 'none' }]),
  ...(noPodman ? [] : [{ name: 'podman', sandbox: 'podman', kind: 'podman' }]),
];

describe('an agent gets an allow-listed environment, never the harness secrets', () => {
  it.each(DRIVERS)('a command agent and the test suites under $name', (d) => {
    const ds = envPrintingSuite();
    const root = d.unprivileged ? plainRoot : tempDir();
    const db = join(root, `r-${d.name}.sqlite`);
    const out = runJson(
      ['run', ds, '--agent', `command:${AGENT}`, '--sandbox', d.sandbox, '--mirror', MIRROR]
        .concat(['--db', db])
        .concat(d.sandbox === 'podman' ? ['--image', testImage()] : []),
      {
        env: { ...SECRETS, ...(d.unprivileged && { HOME: plainRoot }) },
        ...(d.unprivileged && { as: asUnprivileged() }),
      },
    );
    const [t] = trialsOf(db, out.run_id);
    expect((t.details.sandbox as { kind: string }).kind).toBe(d.kind);
    const agent = readFileSync(join(t.artifacts_dir!, 'agent.stdout'), 'utf8');
    // What it does get: the task, and a PATH.
    expect(agent).toMatch(/^NANOBENCH_TASK_ID=textkit-001$/m);
    expect(agent).toMatch(/^PATH=/m);
    const suite = readFileSync(join(t.artifacts_dir!, 'tests-js.stderr'), 'utf8');
    expect(suite).toMatch(/^CI=1$/m);
    expectNoSecrets(artifacts(t));
  });

  it.skipIf(noPodman)(
    "the Harbor oracle (the task's solution/solve.sh) and its verifier under podman",
    () => {
      const dir = tempDir();
      const task = join(dir, 'median');
      cpSync(join(EXAMPLES, 'harbor', 'median'), task, { recursive: true });
      for (const [f, marker] of [
        ['solution/solve.sh', 'solve env'],
        ['tests/test.sh', 'verifier env'],
      ]) {
        const text = readFileSync(join(task, f), 'utf8');
        writeFileSync(join(task, f), text.replace(/\n/, `\necho "--- ${marker}" >&2; env >&2\n`));
      }
      const db = join(tempDir(), 'r.sqlite');
      const out = runJson(
        ['run', task, '--agent', 'oracle', '--sandbox', 'podman', '--db', db].concat([
          '--build-arg',
          `BASE_IMAGE=${testImage()}`,
        ]),
        { env: SECRETS },
      );
      const [t] = trialsOf(db, out.run_id);
      const all = artifacts(t);
      expect(all).toContain('--- solve env');
      expect(all).toContain('--- verifier env');
      expectNoSecrets(all);
    },
  );

  it('Nanocoder, and the commands it runs, under none-as-nobody (bwrap where it works)', () => {
    const scripts = tempDir();
    writeFileSync(
      join(scripts, 'env-dumper.json'),
      JSON.stringify({
        model: 'env-dumper',
        description: 'Scripted stand-in, not a model: writes its environment to a file.',
        tasks: {
          '*': {
            steps: [
              { tool: 'execute_bash', args: { command: 'env > env-of-nanocoder.txt' } },
              { final: 'Done.' },
            ],
          },
        },
      }),
    );
    const db = join(tempDir(), 'r.sqlite');
    const out = runJson(
      ['run', 'examples', '--task', 'textkit-001', '--agent', 'nanocoder', '--model', 'env-dumper']
        .concat(['--scripts', scripts, '--sandbox', noBwrap ? 'none' : 'bwrap', '--db', db])
        .concat(['--mirror', MIRROR]),
      { env: SECRETS },
    );
    const [t] = trialsOf(db, out.run_id);
    const diff = readFileSync(join(t.artifacts_dir!, 'agent.diff'), 'utf8');
    // The file Nanocoder's shell wrote is in the diff: its environment, allow-listed.
    expect(diff).toMatch(/^\+NANOBENCH_PROCESS_TAG=/m);
    expect(diff).toMatch(/^\+NANOCODER_CONFIG_DIR=/m);
    expectNoSecrets(diff);
    expectNoSecrets(artifacts(t));
  });
});
