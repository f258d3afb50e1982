import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, nanobenchAwait, type TrialJson, tempDir } from '../helpers/cli.js';

const cli = nanobenchAwait;

const root = tempDir('nb-provider-fail-');
let silent: Server;
const sockets: Socket[] = [];
let silentPort = 0;
let closedPort = 0;

beforeAll(async () => {
  // Accepts every connection, reads the request, never answers.
  silent = createServer((s) => {
    sockets.push(s);
    s.on('data', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as { port: number }).port;
  // A port nothing listens on: take one, then close it.
  const tmp = createServer();
  await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
  closedPort = (tmp.address() as { port: number }).port;
  await new Promise<void>((r) => tmp.close(() => r()));
  writeFileSync(
    join(root, 'providers.json'),
    JSON.stringify({
      providers: [
        { name: 'refusing', base_url: `http://127.0.0.1:${closedPort}/v1`, connect_timeout_sec: 2 },
        { name: 'silent', base_url: `http://127.0.0.1:${silentPort}/v1`, idle_timeout_sec: 2 },
      ],
    }),
  );
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

async function runAgainst(provider: string) {
  const r = await cli([
    'run',
    join(EXAMPLES, 'tasks', 'textkit-001.json'),
    '--agent',
    'nanocoder',
    '--provider',
    provider,
    '--model',
    'any-model',
    '--providers-config',
    join(root, 'providers.json'),
    '--db',
    join(root, provider, 'results.sqlite'),
    '--sandbox',
    'none',
    '--json',
  ]);
  const trials = r.stdout
    ? (JSON.parse(r.stdout).trials as (TrialJson & Record<string, unknown>)[])
    : [];
  return { ...r, trials };
}

describe('provider failures are infrastructure errors', () => {
  it('a provider that refuses connections: error provider/unreachable, run exits 1', async () => {
    const r = await runAgainst('refusing');
    expect(r.trials).toHaveLength(1);
    expect(r.trials[0]).toMatchObject({ status: 'error', score: null, label: null });
    expect(r.trials[0].error).toMatch(/^provider: /);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /every trial of the run was an infrastructure error, nothing was scored \(provider\/unreachable ×1\)/,
    );
    const report = await cli(['report', '--db', join(root, 'refusing', 'results.sqlite')]);
    expect(report.stdout).toMatch(/1× \*\*provider\/unreachable\*\*/);
  });

  it('a provider that never answers is cut by the idle timeout, long before the agent limit', async () => {
    const r = await runAgainst('silent');
    expect(r.trials[0]).toMatchObject({ status: 'error', score: null });
    expect(r.trials[0].error).toMatch(/^provider: .*sent nothing for 2s/);
    expect(r.code).toBe(1);
    // Nanocoder tries three times; each attempt is cut after 2 s. The agent limit is 900 s.
    expect(r.ms).toBeLessThan(60_000);
  });
});
