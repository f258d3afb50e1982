// The none-as-nobody driver (what --sandbox none gives when NanoBench runs as root), through real
// processes: who the agent is, what it can see, read and write, and what NanoBench finds in its
// directories afterwards. Needs root (it is the driver for root); skipped otherwise.
import { randomUUID } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTagged, runProcessGroup } from '../../src/util/process-group.js';
import { nobodyDriver, nobodyUser } from '../../src/workspace/sandbox/nobody.js';
import type { SandboxDriver, SandboxSession } from '../../src/workspace/sandbox/types.js';
import { varTempDir } from '../helpers/cli.js';
import { isRoot, processesWith } from '../helpers/processes.js';

// Outside /tmp: the sandbox's /tmp is private anyway, which would prove nothing.
const root = varTempDir('nb-nobody-test-');
const dataset = join(root, 'dataset');
const results = join(root, 'results');
const ws = join(results, 'workspaces', 'run', 't1');
const scratch = join(results, 'scratch', 'run', 't1');
const home = join(scratch, 'home');
// Not a protected path: a clone that just lies on the disk (another checkout, a mirror).
const elsewhere = join(root, 'elsewhere', 'project.git');
for (const d of [dataset, ws, home, elsewhere]) mkdirSync(d, { recursive: true });
writeFileSync(join(dataset, 'golden.json'), '{"ground_truth_patch":"SECRET"}');
writeFileSync(join(results, 'results.sqlite'), 'DB');
writeFileSync(join(elsewhere, 'HEAD'), 'ref: refs/heads/main\n');
writeFileSync(join(ws, 'src.js'), 'base\n');

async function sh(session: SandboxSession, script: string, timeoutMs = 30_000) {
  const w = session.wrap('/bin/sh', ['-c', script]);
  return runProcessGroup({
    ...w,
    cwd: ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    timeoutMs,
    killGraceMs: 200,
    tag: session.tag,
  });
}

describe.skipIf(!isRoot)('none-as-nobody sandbox', () => {
  let driver: SandboxDriver;
  const open = () =>
    driver.open({ workspace: ws, home, writable: [scratch], tag: randomUUID(), runId: 'run-x' });
  beforeAll(() => {
    driver = nobodyDriver({ protectedPaths: [dataset, results], prlimitPath: '/usr/bin/prlimit' });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs as nobody without capabilities; its directories are read-write at their real paths', async () => {
    const s = await open();
    const r = await sh(
      s,
      [
        'id -u; pwd; echo "$HOME"',
        'echo made > out.txt; echo note > "$HOME/note"; echo x > /tmp/t && echo TMP_OK',
        "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status",
        'echo "tags: $NANOBENCH_PROCESS_TAG $NANOBENCH_RUN_ID"',
      ].join('; '),
    );
    const report = await s.close();
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([String(nobodyUser().uid), ws, home]);
    expect(r.stdout).toContain('TMP_OK');
    expect(r.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(r.stdout).toMatch(/CapBnd:\s+0+\n/);
    expect(r.stdout).toMatch(/NoNewPrivs:\s+1/);
    expect(r.stdout).toContain(`tags: ${s.tag} run-x`);
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('made\n');
    // Back to NanoBench's user: its git refuses a repository another user owns.
    for (const p of [ws, join(ws, 'out.txt'), home, join(home, 'note')])
      expect(statSync(p).uid, p).toBe(process.getuid!());
    expect(report).toMatchObject({
      kind: 'none-as-nobody',
      containment: 'pid-namespace',
      writesOutside: [],
    });
    expect(report.limits).toContain('--nproc=1024');
  });

  it('sees the toolchain and its own directories only: no dataset, results, cache or other clone', async () => {
    const s = await open();
    const r = await sh(
      s,
      [
        `cat ${dataset}/golden.json || echo NO_DATASET`,
        `cat ${results}/results.sqlite || echo NO_DB`,
        `ls ${join(root, 'elsewhere')} || echo NO_ELSEWHERE`,
        `ls ${results}/workspaces/run`,
        'ls /root/.gitconfig || echo NO_HOST_HOME',
        'echo "shadow: $(cat /etc/shadow | wc -c) bytes"',
        'touch /usr/nb-probe || echo RO_USR',
        'mkdir /nb-probe || echo RO_ROOT',
        'mount -t tmpfs x /mnt || echo NO_MOUNT',
        'echo "processes: $(ls /proc | grep -c "^[0-9]")"',
        'node -e "console.log(require(\'os\').userInfo().username)"',
      ].join('; '),
    );
    await s.close();
    expect(r.stdout).not.toContain('SECRET');
    for (const m of [
      'NO_DATASET',
      'NO_DB',
      'NO_ELSEWHERE',
      'NO_HOST_HOME',
      'shadow: 0 bytes',
      'RO_USR',
      'RO_ROOT',
      'NO_MOUNT',
      'nobody',
    ])
      expect(r.stdout).toContain(m);
    // Its own pid namespace: the init, the shell, ls, grep (and the subshell around them).
    expect(Number(/processes: (\d+)/.exec(r.stdout)?.[1])).toBeLessThan(8);
    // Of the results root, only its own workspace.
    expect(r.stdout).toMatch(/^t1$/m);
  });

  it('a planted symlink is not followed and a setuid bit does not survive the session', async () => {
    const s = await open();
    const r = await sh(
      s,
      'ln -s /etc/passwd passwd-link; cp /bin/true suid-true; chmod 4755 suid-true; ls -l suid-true',
    );
    // A second command in the session: its chown must not follow the link to /etc/passwd.
    await sh(s, 'true');
    await s.close();
    expect(r.stdout).toMatch(/^-rwsr-xr-x 1 nobody/);
    expect(statSync('/etc/passwd').uid).toBe(0);
    expect(lstatSync(join(ws, 'passwd-link')).uid).toBe(process.getuid!());
    const suid = statSync(join(ws, 'suid-true'));
    expect(suid.uid).toBe(process.getuid!());
    expect(suid.mode & 0o6000).toBe(0);
  });

  it('refuses a workspace that is a symlink (it would be bound and chowned as root)', async () => {
    const link = join(root, 'ws-link');
    symlinkSync('/etc', link);
    const s = await driver.open({ workspace: link, home, tag: randomUUID() });
    expect(() => s.wrap('/bin/true', [])).toThrow(/workspace .* is not a directory/);
    await s.close();
    expect(statSync('/etc').uid).toBe(0);
  });

  it('a timeout ends every process, detached and untagged ones included', async () => {
    const marker = `nb-nobody-${randomUUID()}`;
    const s = await open();
    const r = await sh(
      s,
      `(cd / && env -i setsid sh -c 'sleep 300' ${marker} &); sleep 300`,
      1_000,
    );
    await s.close();
    expect(r.timedOut).toBe(true);
    expect(await findTagged(s.tag)).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
  });

  it('the setup failing is the harness failing (exit 125 and a message), not the agent', async () => {
    const gone = join(root, 'vanishing-home');
    mkdirSync(gone);
    const s = await driver.open({ workspace: ws, home: gone, tag: randomUUID() });
    const w = s.wrap('/bin/true', []);
    // It vanishes between wrap() and the start: mount has nothing to bind.
    rmSync(gone, { recursive: true });
    const r = await runProcessGroup({ ...w, cwd: ws, env: {}, timeoutMs: 30_000 });
    await s.close();
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toContain('nanobench-sandbox: setting up the none-as-nobody view failed');
  });
});
