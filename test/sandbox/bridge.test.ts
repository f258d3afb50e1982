// The endpoint bridge in two halves, outside any sandbox: the forwarder listens on a loopback
// port and forwards to the unix socket; the host side forwards the socket to the endpoint.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FORWARDER_SOURCE,
  loopbackTarget,
  startHostBridge,
} from '../../src/workspace/sandbox/bridge.js';

function freePort(): Promise<number> {
  const s = netServer();
  return new Promise((r) =>
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => r(p));
    }),
  );
}

describe('loopbackTarget', () => {
  it('accepts the loopback interface only', () => {
    expect(loopbackTarget('http://127.0.0.1:4321/v1/t/x')).toEqual({
      host: '127.0.0.1',
      port: 4321,
    });
    expect(loopbackTarget('http://localhost:80/')).toEqual({ host: '127.0.0.1', port: 80 });
    expect(loopbackTarget('http://[::1]:9/')).toEqual({ host: '::1', port: 9 });
    expect(() => loopbackTarget('https://api.example.com/v1')).toThrow(/not on the loopback/);
    expect(() => loopbackTarget('not a url')).toThrow(/invalid endpoint URL/);
  });
});

describe('forwarder + host bridge', () => {
  it('carries HTTP from a loopback port through the socket to the endpoint, then exits like its command', async () => {
    const endpoint = createServer((req, res) => res.end(`endpoint saw ${req.url}`));
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'nb-bridge-'));
    const sock = join(dir, 'endpoint.sock');
    const bridge = await startHostBridge(sock, {
      host: '127.0.0.1',
      port: (endpoint.address() as AddressInfo).port,
    });
    writeFileSync(join(dir, 'bridge.mjs'), FORWARDER_SOURCE);
    const port = await freePort();
    const client = `fetch('http://127.0.0.1:${port}/v1/models').then(r => r.text()).then(t => { console.log(t); process.exit(7); })`;
    const child = spawn(
      process.execPath,
      [
        join(dir, 'bridge.mjs'),
        '127.0.0.1',
        String(port),
        sock,
        '--',
        process.execPath,
        '-e',
        client,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    const code = await new Promise((r) => child.on('exit', r));
    await bridge.close();
    endpoint.close();
    rmSync(dir, { recursive: true, force: true });
    expect(out).toBe('endpoint saw /v1/models\n');
    expect(code).toBe(7);
    expect(bridge.connections()).toBe(1);
  });

  it('reports a command it cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-bridge-'));
    writeFileSync(join(dir, 'bridge.mjs'), FORWARDER_SOURCE);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [join(dir, 'bridge.mjs'), '127.0.0.1', String(port), join(dir, 's'), '--', '/nonexistent'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (b) => {
      err += b;
    });
    const code = await new Promise((r) => child.on('exit', r));
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(127);
    expect(err).toMatch(/nanobench-bridge: cannot start \/nonexistent/);
  });
});
