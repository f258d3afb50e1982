import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findTagged,
  killStragglers,
  runProcessGroup,
  TAG_VAR,
} from '../../src/util/process-group.js';
import { alive } from '../helpers/processes.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
describe('runProcessGroup', () => {
  it('stdoutFile: all of what a Node program writes before process.exit arrives', async () => {
    // Node writes to a pipe asynchronously: through a pipe, what is still queued at exit is lost.
    const dir = mkdtempSync(join(tmpdir(), 'nb-pg-'));
    const script = "process.stdout.write('{' + 'a'.repeat(600000) + '}'); process.exit(0)";
    const file = join(dir, 'out');
    const run = (maxOutputBytes?: number) =>
      runProcessGroup({
        command: process.execPath,
        args: ['-e', script],
        cwd: dir,
        env,
        timeoutMs: 20_000,
        stdoutFile: file,
        maxOutputBytes,
      });
    const r = await run();
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBe(600_002);
    expect(readFileSync(file, 'utf8')).toBe(r.stdout);
    // The in-memory copy keeps the head and the tail, as for a pipe.
    const capped = await run(1000);
    expect(capped.stdout).toMatch(/^\{a{999}\n\[\.\.\. \d+ bytes omitted \.\.\.\]\na+\}$/);
    expect(readFileSync(file).length).toBe(600_002);
  });

  it('on timeout kills the group and descendants that left it (setsid)', async () => {
    const r = await runProcessGroup({
      command: 'sh',
      args: ['-c', 'setsid sleep 300 & echo $!; echo started >&2; sleep 300'],
      cwd: '/',
      env,
      timeoutMs: 500,
      killGraceMs: 300,
    });
    expect(r).toMatchObject({ timedOut: true, aborted: false, stderr: 'started\n' });
    expect(r.signal).toBe('SIGTERM');
    const escaped = Number(r.stdout.trim());
    await new Promise((res) => setTimeout(res, 100));
    expect(alive(escaped)).toBe(false);
  });

  it('cleans up background jobs after a normal exit, and stops on abort', async () => {
    const r = await runProcessGroup({
      command: 'sh',
      args: ['-c', 'setsid sleep 300 & echo $!'],
      cwd: '/',
      env,
      timeoutMs: 10_000,
    });
    expect(r.exitCode).toBe(0);
    await new Promise((res) => setTimeout(res, 100));
    expect(alive(Number(r.stdout.trim()))).toBe(false);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const a = await runProcessGroup({
      command: 'sleep',
      args: ['300'],
      cwd: '/',
      env,
      timeoutMs: 10_000,
      signal: ac.signal,
    });
    expect(a).toMatchObject({ aborted: true, timedOut: false });
  });

  it('returns after the grace when a descendant that left the group and the tag holds its pipes', async () => {
    // Such a process cannot be found (a sweep can also miss one caught mid-exec, whose
    // environment reads empty for that instant); without the grace, 'close' never came.
    const dir = mkdtempSync(join(tmpdir(), 'nb-pg-'));
    // The leader waits until the other is in its own session, then exits.
    const leaveGroup = `env -u ${TAG_VAR} setsid sh -c 'echo $$ > pid; exec sleep 300' &`;
    const r = await runProcessGroup({
      command: 'sh',
      args: ['-c', `${leaveGroup} while [ ! -s pid ]; do sleep 0.05; done; cat pid`],
      cwd: dir,
      env,
      timeoutMs: 60_000,
      killGraceMs: 500,
    });
    const held = Number(r.stdout.trim());
    expect(alive(held)).toBe(true);
    process.kill(held, 'SIGKILL');
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
    expect(r.durationMs).toBeLessThan(10_000);
  });

  it('caps memory but keeps the head and the tail of the output', async () => {
    const r = await runProcessGroup({
      command: 'sh',
      args: ['-c', 'echo FIRST; head -c 300000 /dev/zero | tr "\\0" x; echo; echo LAST'],
      cwd: '/',
      env,
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(r.stdout.startsWith('FIRST\n')).toBe(true);
    expect(r.stdout).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(r.stdout.endsWith('LAST\n')).toBe(true);
    expect(r.stdout.length).toBeLessThan(1000 + 64 * 1024 + 100);
  });

  it('killStragglers: by tag, and by working directory for those that dropped the tag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-straggle-'));
    const tagged = spawn('sleep', ['300'], { env: { ...env, [TAG_VAR]: 'tag-1' }, detached: true });
    const inDir = spawn('sleep', ['300'], { cwd: dir, env, detached: true });
    const elsewhere = spawn('sleep', ['300'], { cwd: '/', env, detached: true });
    await new Promise((res) => setTimeout(res, 100));
    const killed = await killStragglers('tag-1', [dir]);
    await new Promise((res) => setTimeout(res, 100));
    expect(killed.sort()).toEqual([tagged.pid, inDir.pid].sort());
    expect([alive(tagged.pid!), alive(inDir.pid!), alive(elsewhere.pid!)]).toEqual([
      false,
      false,
      true,
    ]);
    elsewhere.kill('SIGKILL');
  });

  it('reports a binary that cannot start', async () => {
    const r = await runProcessGroup({
      command: '/nonexistent/bin',
      args: [],
      cwd: '/',
      env,
      timeoutMs: 1000,
    });
    expect(r.spawnError).toMatch(/ENOENT/);
    expect(await findTagged('no-such-tag')).toEqual([]);
  });
});
