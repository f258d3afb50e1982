// Nanocoder 1.30 writes its --json report and exits at once; Node writes to a pipe
// asynchronously on POSIX, so without the blocking-stdout preload the adapter loads first, a
// report larger than the pipe is cut (seen on pyparsing-652: 219 KB of a 600 KB report).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCKING_STDOUT } from '../../src/agent/nanocoder.js';
import { runProcessGroup } from '../../src/util/process-group.js';
import { tempDir } from '../helpers/cli.js';

const SIZE = 4_000_000;
const writeAndExit = `process.stdout.write('x'.repeat(${SIZE})); process.exit(0);`;

describe('the blocking-stdout preload', () => {
  it('delivers a large write followed by process.exit whole; without it the pipe keeps only a part', async () => {
    const preload = join(tempDir(), 'nanobench-stdout.mjs');
    writeFileSync(preload, BLOCKING_STDOUT);
    const run = (args: string[]) =>
      runProcessGroup({
        command: process.execPath,
        args,
        cwd: tempDir(),
        env: { PATH: process.env.PATH ?? '' },
        timeoutMs: 30_000,
      });
    const plain = await run(['-e', writeAndExit]);
    const blocking = await run(['--import', preload, '-e', writeAndExit]);
    expect(plain.stdout.length).toBeLessThan(SIZE);
    expect(blocking.stdout.length).toBe(SIZE);
  });
});
