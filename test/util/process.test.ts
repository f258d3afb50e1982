import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/util/process.js';
import { alive } from '../helpers/processes.js';

describe('run', () => {
  it('kills a background job of the group when the leader exits', async () => {
    const r = await run('sh', ['-c', 'sleep 300 & echo $!'], { cwd: '/' });
    expect(r.exitCode).toBe(0);
    await new Promise((res) => setTimeout(res, 100));
    expect(alive(Number(r.stdout.trim()))).toBe(false);
    expect(r.durationMs).toBeLessThan(3000);
  });

  it('returns after a grace when a process that left the group holds its pipes', async () => {
    // Before, 'close' never came: a test runner's daemon in its own session hung verification.
    const dir = mkdtempSync(join(tmpdir(), 'nb-run-'));
    const leaveGroup = "setsid sh -c 'echo $$ > pid; exec sleep 300' &";
    const r = await run(
      'sh',
      ['-c', `${leaveGroup} while [ ! -s pid ]; do sleep 0.05; done; cat pid`],
      {
        cwd: dir,
      },
    );
    const held = Number(r.stdout.trim());
    expect(alive(held)).toBe(true);
    process.kill(held, 'SIGKILL');
    expect(r.exitCode).toBe(0);
    expect(r.durationMs).toBeLessThan(15_000);
  }, 30_000);
});
