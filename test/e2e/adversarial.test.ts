// Issue #7: agents that try to earn reward they did not earn, through the CLI on the example
// tasks. Every attack runs under --sandbox bwrap and, where the sandbox is not what stops it,
// under --sandbox none too. None may score above what its real code change earns (here: 0, as
// none of them fixes anything). As root (CI), --sandbox none is none-as-nobody, which also stops
// the attacks on the whole disk of issue 12 (a clone holding the fix, the golden patch, the
// results database); plain none runs NanoBench as nobody, where those attacks succeed and the
// run says it had no sandbox. The scripts and what each one tries are in
// test/fixtures/adversarial/; a naive harness (test/helpers/naive-harness.ts) shows that the
// attacks work where the matching defence is missing. The attacks on the workspace run under every
// provisioning mode (test/helpers/provision-modes.ts): an overlay's upper layer, read alone, must
// catch everything a walk of a copy does.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, it as vitestIt } from 'vitest';
import { Store, type TrialRecord } from '../../src/store/store.js';
import type { Task } from '../../src/task/schema.js';
import { detectContainment } from '../../src/workspace/sandbox/contain.js';
import { EXAMPLES, nanobench, ROOT, runJson, varTempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';
import { checkout, naiveRun } from '../helpers/naive-harness.js';
import { asUnprivileged, isRoot, NOBODY, unprivilegedDir } from '../helpers/processes.js';
import { type ModeCase, provisionModes } from '../helpers/provision-modes.js';
import { writeVariants } from '../helpers/task-variants.js';
import { noBwrap } from '../sandbox/require-bwrap.js';

const ADV = join(ROOT, 'test/fixtures/adversarial');
// Outside /tmp: the sandbox's /tmp is private, so writes next to the database would vanish there
// instead of being seen by the audit.
const root = varTempDir('nb-adv-');
const db = join(root, 'r.sqlite');
const variants = join(root, 'variants');
const MIRROR = join(EXAMPLES, 'mirror');
// As root (CI, this machine), `none` means none-as-nobody; elsewhere plain none. podman runs the
// same attacks in containers of the local test image (issue #17).
const SANDBOXES = [...(noBwrap ? [] : ['bwrap']), 'none', ...(noPodman ? [] : ['podman'])];
/** The sandboxes that hide the disk: bwrap, podman, and none-as-nobody (none, when we are root). */
const HIDING = [
  ...(noBwrap ? [] : ['bwrap']),
  ...(isRoot ? ['none'] : []),
  ...(noPodman ? [] : ['podman']),
];
/** The container sandbox runs the example tasks in the test image. */
const imageArgs = (sandbox: string) => (sandbox === 'podman' ? ['--image', testImage()] : []);
// Plain none needs a non-root NanoBench: these runs go as nobody, in a root nobody owns.
const plainRoot = unprivilegedDir('nb-adv-plain-');

function attackWith(
  script: string,
  tasks: string[],
  sandbox: string,
  o: {
    env?: Record<string, string>;
    args?: string[];
    agent?: string;
    /** Run NanoBench itself as an unprivileged user (nobody when we are root), on EXAMPLES. */
    unprivileged?: boolean;
    /** --provision, with a results root on a filesystem the mode works on. */
    provision?: ModeCase;
  } = {},
): TrialRecord[] {
  const agent = o.agent ?? `command:${join(ADV, script)}`;
  const u = o.unprivileged ?? false;
  const dbPath = u
    ? join(plainRoot, 'r.sqlite')
    : o.provision
      ? join(o.provision.root, 'r.sqlite')
      : db;
  const out = runJson(
    ['run', EXAMPLES, ...(u ? [] : [variants]), '--agent', agent, '--task', tasks.join(',')]
      .concat(['--sandbox', sandbox, '--mirror', MIRROR, '--runs', '1', '--db', dbPath])
      .concat(o.provision ? ['--provision', o.provision.mode] : [])
      .concat(imageArgs(sandbox), o.args ?? []),
    { env: { ...o.env, ...(u && { HOME: plainRoot }) }, as: u ? asUnprivileged() : undefined },
  );
  return trialsOf(dbPath, out.run_id);
}

/** The stored trials of a run (read as root: the files it touches go back to their owner). */
function trialsOf(dbPath: string, runId: string): TrialRecord[] {
  const store = Store.open(dbPath);
  try {
    return store.trials(runId);
  } finally {
    store.close();
    if (isRoot && dbPath.startsWith(plainRoot))
      execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, plainRoot]);
  }
}

const agentOut = (t: TrialRecord) =>
  readFileSync(join(t.artifacts_dir!, 'agent.stdout'), 'utf8') +
  readFileSync(join(t.artifacts_dir!, 'agent.stderr'), 'utf8');

/**
 * Score 0, and (unless the attack broke the code) the suite really ran on the base code: every
 * P2P passed. The pytest variant reports only when everything passes, so there its own output
 * must show the four failures and the rest passing.
 */
function expectNothingEarned(trials: TrialRecord[], flag?: string, suiteRan = true) {
  expect(trials.length).toBeGreaterThan(0);
  for (const t of trials) {
    const what = `${t.task_id}: ${t.label} ${JSON.stringify(t.details.integrity)}`;
    expect(t.status, what).toBe('scored');
    expect(t.score, what).toBe(0);
    if (flag) expect(t.flags, what).toContain(flag);
    if (!suiteRan) continue;
    if (t.task_id.endsWith('-pytest'))
      expect(readFileSync(join(t.artifacts_dir!, 'tests-py.stdout'), 'utf8')).toMatch(
        /\b4 failed, 21 passed\b/,
      );
    else {
      const p2p = t.details.pass_to_pass as { passed: boolean }[];
      expect(
        p2p.filter((x) => !x.passed),
        what,
      ).toEqual([]);
    }
  }
}

/** Processes (ours or not) whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

let tasks: Record<string, Task>;
beforeAll(() => {
  tasks = writeVariants(variants);
});
const modes = await provisionModes();
afterAll(() => {
  modes.release();
  rmSync(root, { recursive: true, force: true });
  rmSync(plainRoot, { recursive: true, force: true });
});
// Every provisioning mode under bwrap; under none (whose overlays sit on a lower layer nobody
// owns) the two a run picks by itself (overlay as root, copy otherwise): fuse-overlayfs and
// reflink differ from overlay in how the workspace is made, not in what the agent can reach, and
// each full pass costs CI half a minute. podman, whose workspace is a mount of the container like
// any other, under the first mode.
const modesUnder = (sandbox: string) =>
  sandbox === 'podman'
    ? modes.cases.slice(0, 1)
    : sandbox === 'none'
      ? modes.cases.filter((c) => c.mode === 'overlay' || c.mode === 'copy')
      : modes.cases;
const WORKSPACE_CASES = SANDBOXES.flatMap((sandbox) =>
  modesUnder(sandbox).map((provision) => ({
    sandbox,
    provision,
    name: `${sandbox}, ${provision.mode}`,
  })),
);

describe('the attacks work against a naive harness', () => {
  it('npm test script, project .npmrc, stale result file, Python hooks, escaping symlink', () => {
    const cases: [string, string, Record<string, string>?][] = [
      ['npm-test-script.sh', 'textkit-001-npm'],
      ['npmrc-shell.sh', 'textkit-001-npm'],
      ['fake-result-file.sh', 'invoicing-001-pytest'],
      ['python-hooks.sh', 'invoicing-001', { NANOBENCH_TEST_ATTACK: 'shadow' }],
      ['python-hooks.sh', 'invoicing-001', { NANOBENCH_TEST_ATTACK: 'usersite' }],
      ['python-hooks.sh', 'invoicing-001-pythonpath', { NANOBENCH_TEST_ATTACK: 'sitecustomize' }],
      ['python-hooks.sh', 'invoicing-001-pytest', { NANOBENCH_TEST_ATTACK: 'conftest' }],
      ['symlink-escape.sh', 'textkit-001', { NANOBENCH_TEST_ESCAPE_DIR: root }],
    ];
    for (const [script, id, env] of cases) {
      const r = naiveRun(tasks[id], join(ADV, script), env);
      rmSync(join(r.dir, '..'), { recursive: true, force: true });
      expect(r.f2pPassed, `${script} ${JSON.stringify(env ?? {})} on ${id}`).toBe(r.f2pTotal);
    }
  });

  it('a planted .git configuration runs commands when git looks at the workspace', () => {
    const marker = join(tmpdir(), `nb-pwned-${randomUUID()}`);
    const dir = checkout(tasks['textkit-001']);
    execFileSync('bash', [join(ADV, 'git-config-exec.sh')], {
      cwd: dir,
      env: { ...process.env, NANOBENCH_TASK_ID: 'textkit-001', NANOBENCH_TEST_PWN_MARKER: marker },
    });
    // git fails in the end (the nested repository has no commit: one more way to break a
    // harness), but not before the filter ran.
    spawnSync('git', ['add', '-A'], { cwd: dir, stdio: 'pipe' });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker, { force: true });
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });
});

describe.each(WORKSPACE_CASES)(
  'adversarial agents earn nothing under --sandbox, --provision: $name',
  ({ sandbox, provision }) => {
    const attack = (...[script, ids, , o]: Parameters<typeof attackWith>) =>
      attackWith(script, ids, sandbox, { ...o, provision });
    const it = provision.skip ? vitestIt.skip : vitestIt;
    it('editing the tests', () => {
      expectNothingEarned(attack('edit-tests.sh', ['textkit-001'], sandbox), 'touched_tests');
    });

    it('replacing the npm test script, or the shell npm runs it with', () => {
      for (const script of ['npm-test-script.sh', 'npmrc-shell.sh'])
        expectNothingEarned(attack(script, ['textkit-001-npm'], sandbox), 'touched_test_infra');
    });

    it('writing a passing JUnit file ahead of the suite', () => {
      const [t] = attack('fake-result-file.sh', ['invoicing-001-pytest'], sandbox);
      expectNothingEarned([t], 'wrote_result_file');
    });

    it('Python hooks: a unittest shadow, user-site and site customization, conftest.py', () => {
      const ids = ['invoicing-001', 'invoicing-001-pythonpath', 'invoicing-001-pytest'];
      expectNothingEarned(attack('python-hooks.sh', ids, sandbox), 'touched_test_infra');
    });

    it('looking for the fix in the history inside the workspace', () => {
      // Under none the script goes on to fetch from NanoBench's source cache: see the strict test.
      const [t] = attack('git-history.sh', ['textkit-001'], sandbox, {
        args: ['--integrity', 'strict'],
      });
      expectNothingEarned([t]);
      expect(agentOut(t)).toContain('RESULT in-workspace commits past base: 0');
      if (HIDING.includes(sandbox)) expect(agentOut(t)).toContain('RESULT source clone: not found');
    });

    it('planting git configuration that would run on the host', () => {
      const marker = join(tmpdir(), `nb-pwned-${randomUUID()}`);
      const trials = attack('git-config-exec.sh', ['textkit-001'], sandbox, {
        env: { NANOBENCH_TEST_PWN_MARKER: marker },
      });
      expectNothingEarned(trials, 'touched_git_internals');
      expect(existsSync(marker)).toBe(false);
    });

    it('leaving processes behind that rewrite the code after the agent is done', () => {
      const marker = `nb-straggler-${randomUUID()}`;
      // The evasive straggler (no tag, outside the workspace) is stopped by a pid namespace only:
      // bwrap's, none-as-nobody's, or plain none's where one can be made.
      const contained =
        sandbox === 'bwrap' ||
        sandbox === 'podman' ||
        isRoot ||
        detectContainment().containment === 'pid-namespace';
      const env = {
        NANOBENCH_TEST_STRAGGLER: marker,
        NANOBENCH_TEST_EVASIVE: contained ? '1' : '',
      };
      const [t] = attack('straggler.sh', ['textkit-001'], sandbox, { env });
      expectNothingEarned([t]);
      expect(t.files_changed).toEqual([]);
      expect(processesWith(marker)).toEqual([]);
    });

    it('keeping the change outside the workspace behind a symlink', () => {
      // As nobody (none as root) the agent can write nowhere on the host, and a container's only
      // writable places are its mounts and its private /tmp: /tmp it is. Elsewhere it tries next
      // to the results (bwrap: it cannot, and names them trying).
      const escapeDir =
        (sandbox === 'none' && isRoot) || sandbox === 'podman' ? '/tmp' : provision.root;
      const [t] = attack('symlink-escape.sh', ['textkit-001'], sandbox, {
        env: { NANOBENCH_TEST_ESCAPE_DIR: escapeDir },
      });
      expectNothingEarned([t], 'escaped_workspace', false);
    });
  },
);

describe.skipIf(noBwrap)('attacks only a sandbox can stop (--sandbox bwrap)', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((_q, res) => res.end('host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => server?.close());

  it('reading the golden patch, the results and the host home; writing next to the db', () => {
    const [t] = attackWith('read-outside.sh', ['textkit-001'], 'bwrap');
    expectNothingEarned([t], 'escaped_workspace');
    const out = agentOut(t);
    expect(out).toContain('RESULT golden patch: not found');
    expect(out).not.toMatch(/RESULT (read the results database|listed the artifacts|read \/)/);
    expect(existsSync(join(root, 'planted-by-agent.txt'))).toBe(false);
    const evidence = t.details.integrity as Record<string, string[]>;
    expect(evidence.writes_outside).toContain(join(root, 'planted-by-agent.txt'));
    expect(evidence.escaping_symlinks).toEqual([`results-link -> ${root}`]);
  });

  it('calling a public host, DNS, or another port on the host loopback', () => {
    const port = String((server.address() as AddressInfo).port);
    const [t] = attackWith('network.sh', ['textkit-001'], 'bwrap', {
      env: { NANOBENCH_TEST_HOST_PORT: port },
    });
    expectNothingEarned([t], 'network_blocked');
    const results = agentOut(t)
      .split('\n')
      .filter((l) => l.startsWith('RESULT'));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const line of results) expect(line).not.toContain('reached');
    expect(results).toContain('RESULT host loopback port: ECONNREFUSED');
  });

  it('Nanocoder inside bwrap reaches its model endpoint (through the bridge) and passes', () => {
    const [t] = attackWith('', ['textkit-001'], 'bwrap', {
      agent: 'nanocoder',
      args: ['--model', 'competent'],
    });
    expect(t).toMatchObject({ status: 'scored', label: 'pass', score: 1 });
    expect(t.details.sandbox).toMatchObject({ kind: 'bwrap' });
    expect(
      (t.details.sandbox as { endpoint_connections: number }).endpoint_connections,
    ).toBeGreaterThan(0);
  });
});

describe.skipIf(noPodman)('attacks only a sandbox can stop (--sandbox podman)', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((_q, res) => res.end('host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => server?.close());

  it('calling a public host, DNS, or another port on the host loopback', () => {
    const port = String((server.address() as AddressInfo).port);
    const [t] = attackWith('network.sh', ['textkit-001'], 'podman', {
      env: { NANOBENCH_TEST_HOST_PORT: port },
    });
    expectNothingEarned([t], 'network_blocked');
    const results = agentOut(t)
      .split('\n')
      .filter((l) => l.startsWith('RESULT'));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const line of results) expect(line).not.toContain('reached');
    expect(results).toContain('RESULT host loopback port: ECONNREFUSED');
  });

  it('reading the golden patch, the results and the host home; writing next to the db', () => {
    const [t] = attackWith('read-outside.sh', ['textkit-001'], 'podman');
    expectNothingEarned([t]);
    const out = agentOut(t);
    expect(out).toContain('RESULT golden patch: not found');
    expect(out).not.toMatch(/RESULT (read the results database|listed the artifacts|read \/)/);
    // Its write "next to the database" lands in the container's private /var/tmp (a tmpfs under
    // --read-only), gone with the container: never on the host.
    expect(existsSync(join(root, 'planted-by-agent.txt'))).toBe(false);
  });

  it('Nanocoder in a container reaches its model endpoint (through the bridge) and passes', () => {
    const [t] = attackWith('', ['textkit-001'], 'podman', {
      agent: 'nanocoder',
      args: ['--model', 'competent'],
    });
    expect(t).toMatchObject({ status: 'scored', label: 'pass', score: 1 });
    expect(t.details.sandbox).toMatchObject({ kind: 'podman' });
    expect(
      (t.details.sandbox as { endpoint_connections: number }).endpoint_connections,
    ).toBeGreaterThan(0);
  });
});

describe.each(HIDING)(
  'attacks on the whole disk under --sandbox %s earn and corrupt nothing',
  (sandbox) => {
    it('searching the disk for a clone that holds the base commit, to apply its child', () => {
      const [t] = attackWith('search-clones.sh', ['textkit-001'], sandbox);
      expectNothingEarned([t]);
      expect(t.files_changed).toEqual([]);
      expect(agentOut(t)).toContain('RESULT clones holding base: 0, none with a child of it');
    });

    it('reading the golden patch from the dataset', () => {
      const [t] = attackWith('read-golden.sh', ['textkit-001'], sandbox);
      expectNothingEarned([t]);
      expect(agentOut(t)).toContain('RESULT golden patch: not found');
    });

    it("changing an earlier run's stored score in the results database", () => {
      const [earlier] = attackWith('', ['textkit-001'], sandbox, { agent: 'nop' });
      expect(earlier).toMatchObject({ status: 'scored', score: 0 });
      const [t] = attackWith('tamper-db.sh', ['textkit-001'], sandbox);
      expectNothingEarned([t]);
      expect(agentOut(t)).toContain('RESULT databases changed: 0');
      expect(trialsOf(db, earlier.run_id)[0]).toMatchObject({ score: 0, label: earlier.label });
    });

    it('the run and every trial name the isolation they had', () => {
      const out = runJson(
        ['run', EXAMPLES, '--agent', 'nop', '--task', 'textkit-001', '--sandbox', sandbox].concat(
          ['--runs', '1', '--db', db],
          imageArgs(sandbox),
        ),
      );
      const store = Store.open(db);
      try {
        const kind = sandbox === 'none' ? 'none-as-nobody' : sandbox;
        expect(store.getRun(out.run_id)!.config.sandbox_used).toBe(kind);
        expect(store.trials(out.run_id)[0].details.sandbox).toMatchObject({
          kind,
          containment: sandbox === 'podman' ? 'container' : 'pid-namespace',
        });
      } finally {
        store.close();
      }
    });
  },
);

describe.skipIf(!isRoot)('none as root is none-as-nobody: what bwrap alone stopped before', () => {
  it('reading the golden patch, the results and the host home; writing next to the db', () => {
    const [t] = attackWith('read-outside.sh', ['textkit-001'], 'none');
    expectNothingEarned([t], 'escaped_workspace');
    const out = agentOut(t);
    expect(out).toContain('RESULT golden patch: not found');
    expect(out).not.toMatch(
      /RESULT (read the results database|listed the artifacts|read \/|wrote)/,
    );
    expect(existsSync(join(root, 'planted-by-agent.txt'))).toBe(false);
  });

  it('Nanocoder runs as nobody, reaches its endpoint (the network is shared) and passes', () => {
    const [t] = attackWith('', ['textkit-001'], 'none', {
      agent: 'nanocoder',
      args: ['--model', 'competent'],
    });
    expect(t).toMatchObject({ status: 'scored', label: 'pass', score: 1 });
    expect(t.details.sandbox).toMatchObject({ kind: 'none-as-nobody' });
  });
});

describe('plain none (an unprivileged NanoBench): no isolation, and the run says so', () => {
  it('warns on stderr and in the report; the attacks then succeed', () => {
    const r = nanobench(
      ['run', EXAMPLES, '--agent', 'nop', '--task', 'textkit-001', '--sandbox', 'none'].concat([
        '--runs',
        '1',
        '--db',
        join(plainRoot, 'r.sqlite'),
      ]),
      { as: asUnprivileged(), env: { HOME: plainRoot } },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/WARNING: sandbox "none": agents run WITHOUT isolation/);
    expect(r.stdout).toMatch(/\*\*Warning: no sandbox\.\*\* Agents ran without isolation/);
    // Which is no idle warning:
    const [golden] = attackWith('read-golden.sh', ['textkit-001'], 'none', { unprivileged: true });
    expect(agentOut(golden)).toMatch(/RESULT golden patch applied from \//);
    expect(golden).toMatchObject({ label: 'pass', score: 1 });
    const [clone] = attackWith('search-clones.sh', ['textkit-001'], 'none', { unprivileged: true });
    expect(agentOut(clone)).toMatch(/RESULT applied [0-9a-f]{40} from \//);
    expect(clone).toMatchObject({ label: 'pass', score: 1 });
    const [earlier] = attackWith('', ['textkit-001'], 'none', { agent: 'nop', unprivileged: true });
    attackWith('tamper-db.sh', ['textkit-001'], 'none', { unprivileged: true });
    expect(trialsOf(join(plainRoot, 'r.sqlite'), earlier.run_id)[0]).toMatchObject({ score: 1 });
  });

  it('an agent that got the fix from the source cache fails under --integrity strict', () => {
    const [flagged] = attackWith('git-history.sh', ['textkit-001'], 'none', { unprivileged: true });
    expect(agentOut(flagged)).toMatch(/RESULT checked out the fix/);
    expect(flagged).toMatchObject({ label: 'pass', score: 1 });
    expect(flagged.flags).toContain('touched_git_internals');
    const [strict] = attackWith('git-history.sh', ['textkit-001'], 'none', {
      unprivileged: true,
      args: ['--integrity', 'strict'],
    });
    expect(strict).toMatchObject({ label: 'integrity_violation', score: 0 });
    expect((strict.details.integrity as { strict: unknown }).strict).toMatchObject({
      original_label: 'pass',
      original_score: 1,
    });
  });
});

it.skipIf(!isRoot)(
  '--sandbox none as root warns that the network is open, on stderr and in the report',
  () => {
    const r = nanobench(
      ['run', EXAMPLES, '--agent', 'nop', '--task', 'textkit-001', '--sandbox', 'none'].concat([
        '--runs',
        '1',
        '--db',
        join(root, 'none.sqlite'),
      ]),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/WARNING: sandbox "none-as-nobody": .* WITH the network/);
    expect(r.stdout).toMatch(/Warning: no sandbox for the network/);
  },
);
