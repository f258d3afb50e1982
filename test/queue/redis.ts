// A Redis for the queue tests. NANOBENCH_TEST_REDIS_URL (set by `npm test`) names one; it must answer,
// or the tests fail (never skip). Without it, a private redis-server is started on a free port of
// 127.0.0.1 and stopped afterwards. Each caller gets its own database number, so test files that
// share one server never see each other's jobs. startPrivateRedis is always a server of its own
// (a test that restarts Redis must not empty the shared one).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { assertNotUnitTier } from '../helpers/cli.js';

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

/** One RESP command, for PING and FLUSHDB (no client library needed). */
export function redisCommand(url: string, args: string[], timeoutMs = 3000): Promise<string> {
  const u = new URL(url);
  const db = u.pathname.replace('/', '') || '0';
  const frame = (a: string[]) =>
    `*${a.length}\r\n${a.map((x) => `$${Buffer.byteLength(x)}\r\n${x}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: u.hostname, port: Number(u.port || 6379) });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`redis ${url}: no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    let buf = '';
    sock.on('connect', () => sock.write(frame(['SELECT', db]) + frame(args)));
    sock.on('data', (d) => {
      buf += d.toString();
      const lines = buf.split('\r\n');
      if (lines.length >= 3) {
        clearTimeout(timer);
        sock.end();
        if (lines[1].startsWith('-')) reject(new Error(lines[1]));
        else resolve(lines[1]);
      }
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`redis ${url}: ${e.message}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function startTestRedis(db: number): Promise<TestRedis> {
  assertNotUnitTier('this test needs Redis');
  const given = process.env.NANOBENCH_TEST_REDIS_URL;
  if (given) {
    const url = `${given.replace(/\/\d*$/, '')}/${db}`;
    await redisCommand(url, ['PING']); // unreachable: the test fails here
    await redisCommand(url, ['FLUSHDB']);
    return { url, stop: async () => {} };
  }
  return startPrivateRedis(db);
}

/**
 * A redis-server of this test alone (never the shared one), on a free port of 127.0.0.1, holding
 * nothing on disk: `restart` stops it and starts an empty one on the same port (Redis restarted
 * with its data lost, as the queue tests need).
 */
export async function startPrivateRedis(db = 0): Promise<TestRedis & { restart(): Promise<void> }> {
  assertNotUnitTier('this test needs Redis');
  if (spawnSync('which', ['redis-server']).status !== 0)
    throw new Error('no Redis: install redis-server or set NANOBENCH_TEST_REDIS_URL');
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}/${db}`;
  let child = await launch(port, url);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return {
    url,
    stop,
    async restart() {
      await stop();
      child = await launch(port, url);
    },
  };
}

async function launch(port: number, url: string): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await redisCommand(url, ['PING'], 500);
      return child;
    } catch (e) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
