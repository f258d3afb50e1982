// The model endpoint, bridged into a sandbox that has no network. On the host, a unix-socket
// server per session forwards each connection to the endpoint's 127.0.0.1:PORT. Inside, a tiny
// forwarder listens on the same 127.0.0.1:PORT of the sandbox's own loopback and forwards to the
// bound socket, then starts the agent; so the endpoint URL the agent was given stays valid.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { InfraError } from '../../util/errors.js';

export interface LoopbackTarget {
  host: string;
  port: number;
}

/** The endpoint's loopback address; anything else cannot be bridged (there is no network). */
export function loopbackTarget(baseUrl: string): LoopbackTarget {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new InfraError('sandbox', `invalid endpoint URL ${baseUrl}`);
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  if (host === '127.0.0.1' || host === 'localhost') return { host: '127.0.0.1', port };
  if (host === '::1') return { host, port };
  throw new InfraError(
    'sandbox',
    `endpoint ${u.origin} is not on the loopback interface; only a local endpoint (the NanoBench proxy) can be bridged into the sandbox`,
  );
}

export interface HostBridge {
  connections(): number;
  close(): Promise<void>;
}

/** Unix-socket server at `socketPath` forwarding every connection to `target`. */
export function startHostBridge(socketPath: string, target: LoopbackTarget): Promise<HostBridge> {
  const open = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((inner) => {
    count++;
    const outer = createConnection({ host: target.host, port: target.port });
    for (const s of [inner, outer]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        inner.destroy();
        outer.destroy();
      });
    }
    inner.pipe(outer);
    outer.pipe(inner);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) =>
      reject(new InfraError('sandbox', `endpoint bridge at ${socketPath}: ${e.message}`)),
    );
    server.listen(socketPath, () =>
      resolve({
        connections: () => count,
        close: () =>
          new Promise<void>((done) => {
            for (const s of open) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

/**
 * The in-sandbox forwarder, run by the system node from a read-only bind as an ES module:
 * `node bridge.mjs HOST PORT SOCKET [HOST PORT SOCKET ...] -- COMMAND ARGS...` (one triple per
 * endpoint: the provider proxy, a judge's port). It listens first, then runs the command with
 * inherited stdio, passes on termination signals and exits the way the command did.
 * Plain JavaScript on purpose: it must run under any Node >= 20 without a build step.
 */
export const FORWARDER_SOURCE = `import { createConnection, createServer } from 'node:net';
import { spawn } from 'node:child_process';
const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const triples = sep > 0 ? argv.slice(0, sep) : [];
const [command, ...args] = sep > 0 ? argv.slice(sep + 1) : [];
if (sep <= 0 || triples.length % 3 !== 0 || !command) {
  console.error('nanobench-bridge: usage: bridge.mjs HOST PORT SOCKET [HOST PORT SOCKET ...] -- COMMAND ARGS...');
  process.exit(125);
}
const servers = [];
const listen = (host, port, socketPath) => new Promise((resolve) => {
  const server = createServer((inner) => {
    const outer = createConnection(socketPath);
    const stop = () => { inner.destroy(); outer.destroy(); };
    inner.on('error', stop);
    outer.on('error', stop);
    inner.pipe(outer);
    outer.pipe(inner);
  });
  server.on('error', (e) => {
    console.error('nanobench-bridge: cannot listen on ' + host + ':' + port + ': ' + e.message);
    process.exit(125);
  });
  servers.push(server);
  server.listen(Number(port), host, resolve);
});
for (let i = 0; i < triples.length; i += 3) await listen(triples[i], triples[i + 1], triples[i + 2]);
const child = spawn(command, args, { stdio: 'inherit' });
const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'];
for (const s of signals) process.on(s, () => child.kill(s));
child.on('error', (e) => {
  console.error('nanobench-bridge: cannot start ' + command + ': ' + e.message);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  for (const server of servers) server.close();
  if (signal) {
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
`;
