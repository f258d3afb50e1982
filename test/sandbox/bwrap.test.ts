// The bwrap driver, through real sandboxed processes: what the agent can and cannot see, write
// and reach. Network tests use 127.0.0.1 only (the sandbox has no route anywhere else).
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcessGroup } from '../../src/util/process-group.js';
import { selectSandbox } from '../../src/workspace/sandbox/select.js';
import type { SandboxDriver, SandboxSession } from '../../src/workspace/sandbox/types.js';
import { varTempDir } from '../helpers/cli.js';
import { noBwrap } from './require-bwrap.js';

// Outside /tmp on purpose: the sandbox's /tmp is private anyway, which would prove nothing.
const root = varTempDir('nb-sbx-test-');
const dataset = join(root, 'dataset');
const ws = join(root, 'results', 'workspaces', 'run', 't1');
const home = join(root, 'results', 'scratch', 'run', 't1', 'home');
for (const d of [dataset, ws, home]) mkdirSync(d, { recursive: true });
writeFileSync(join(dataset, 'golden.json'), '{"ground_truth_patch":"SECRET"}');
writeFileSync(join(root, 'results', 'results.sqlite'), 'DB');

function listen(handler: (res: import('node:http').ServerResponse) => void): Promise<Server> {
  const s = createServer((_req, res) => handler(res));
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(s)));
}
const port = (s: Server) => (s.address() as AddressInfo).port;

async function sh(session: SandboxSession, script: string) {
  const w = session.wrap('/bin/sh', ['-c', script]);
  return runProcessGroup({
    ...w,
    cwd: ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    timeoutMs: 30_000,
    tag: session.tag,
  });
}

describe.skipIf(noBwrap)('bwrap sandbox', () => {
  let driver: SandboxDriver;
  let endpoint: Server;
  let other: Server;
  beforeAll(async () => {
    driver = await selectSandbox('bwrap', {
      protectedPaths: [dataset, join(root, 'results')],
    });
    endpoint = await listen((res) => res.end('from-endpoint'));
    other = await listen((res) => res.end('from-other'));
  });
  afterAll(() => {
    endpoint?.close();
    other?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('sees its workspace read-write at its real path, a private /tmp, and its HOME', async () => {
    const hostFile = join('/tmp', `nb-host-${process.pid}`);
    writeFileSync(hostFile, 'host');
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const r = await sh(
      s,
      `pwd; echo "$HOME"; echo made > out.txt; ls ${hostFile} || echo PRIVATE; echo x > /tmp/t`,
    ).finally(() => rmSync(hostFile, { force: true }));
    await s.close();
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([ws, home, 'PRIVATE']);
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot see the dataset, the results or the host home; secrets and the toolchain stay closed', async () => {
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const r = await sh(
      s,
      [
        `cat ${dataset}/golden.json || echo NO_DATASET`,
        `cat ${root}/results/results.sqlite || echo NO_DB`,
        `ls ${process.env.HOME ?? '/root'}/.gitconfig || echo NO_HOST_HOME`,
        'echo "shadow: $(cat /etc/shadow | wc -c) bytes"',
        'touch /usr/nb-probe || echo RO_USR',
        'mount -o remount,bind,rw /usr || echo NO_REMOUNT',
        'grep CapEff /proc/self/status',
      ].join('; '),
    );
    await s.close();
    expect(r.stdout).not.toContain('SECRET');
    for (const m of [
      'NO_DATASET',
      'NO_DB',
      'NO_HOST_HOME',
      'shadow: 0 bytes',
      'RO_USR',
      'NO_REMOUNT',
    ])
      expect(r.stdout).toContain(m);
    expect(r.stdout).toMatch(/CapEff:\s+0+\n/);
  });

  it('reaches the endpoint through the bridge and nothing else on the network', async () => {
    const s = await driver.open({
      workspace: ws,
      home,
      tag: randomUUID(),
      endpoint: { baseUrl: `http://127.0.0.1:${port(endpoint)}/v1` },
    });
    const probe = (url: string) =>
      `fetch('${url}', { signal: AbortSignal.timeout(3000) }).then(r => r.text(), e => 'ERR ' + (e.cause?.code ?? e.name))`;
    const script = `Promise.all([${[
      probe(`http://127.0.0.1:${port(endpoint)}/v1/models`),
      probe(`http://127.0.0.1:${port(other)}/`),
      probe('http://93.184.216.34/'),
    ].join(',')}]).then(r => console.log(JSON.stringify(r)))`;
    const w = s.wrap(process.execPath, ['-e', script]);
    const r = await runProcessGroup({
      ...w,
      cwd: ws,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 30_000,
      tag: s.tag,
    });
    const report = await s.close();
    expect(r.stderr).toBe('');
    const [viaBridge, hostPort, internet] = JSON.parse(r.stdout);
    expect(viaBridge).toBe('from-endpoint');
    expect(hostPort).toBe('ERR ECONNREFUSED');
    expect(internet).toBe('ERR ENETUNREACH');
    expect(report.endpointConnections).toBe(1);
  });

  it('reports what was written outside the allowed directories', async () => {
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const r = await sh(s, `echo x > ${root}/results/results.sqlite; mkdir -p /srv/a; echo ok`);
    const report = await s.close();
    expect(r.stdout).toBe('ok\n');
    expect(report.writesOutside).toEqual(['/srv', `${root}/results/results.sqlite`]);
    expect(readFileSync(join(root, 'results', 'results.sqlite'), 'utf8')).toBe('DB');
  });

  it('runs several commands in one session (each gets its own root)', async () => {
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const codes = [(await sh(s, 'exit 0')).exitCode, (await sh(s, 'exit 0')).exitCode];
    await s.close();
    expect(codes).toEqual([0, 0]);
  });

  it('a timeout ends the whole sandbox, background processes included', async () => {
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const w = s.wrap('/bin/sh', ['-c', '(sleep 300 &); sleep 300']);
    const r = await runProcessGroup({
      ...w,
      cwd: ws,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 500,
      killGraceMs: 200,
      tag: s.tag,
    });
    await s.close();
    expect(r.timedOut).toBe(true);
    const { findTagged } = await import('../../src/util/process-group.js');
    expect(await findTagged(s.tag)).toEqual([]);
  });

  it('limits processes and memory, and leaves no process behind', async () => {
    const s = await driver.open({ workspace: ws, home, tag: randomUUID() });
    const r = await sh(
      s,
      `grep -E 'processes|data size' /proc/self/limits; (sleep 300 &) ; echo $$`,
    );
    const report = await s.close();
    expect(r.stdout).toMatch(/Max processes\s+1024/);
    expect(r.stdout).toMatch(/Max data size\s+4294967296/);
    expect(report.limits).toContain('--nproc=1024');
    const { findTagged } = await import('../../src/util/process-group.js');
    expect(await findTagged(s.tag)).toEqual([]);
  });
});
