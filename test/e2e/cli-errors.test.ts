// A user's mistake gets one clear line on stderr, a non-zero exit and no stack trace.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nanobench, tempDir } from '../helpers/cli.js';

function expectUserError(args: string[], pattern: RegExp, env?: NodeJS.ProcessEnv) {
  const r = nanobench(args, { env });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('CLI errors', () => {
  const db = join(tempDir(), 'r.sqlite');
  it('a missing dataset', () =>
    expectUserError(['run', 'nope', '--agent', 'nop', '--db', db], /nope: no such dataset/));
  it('an unknown agent', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'claude', '--db', db],
      /--agent must be nanocoder, oracle, nop or command/,
    ));
  it('a bad --runs', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nop', '--runs', '0', '--db', db],
      /--runs must be a positive integer/,
    ));
  it('an unknown task id', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nop', '--task', 'zzz', '--db', db],
      /--task: no task named zzz/,
    ));
  it('--sandbox auto with a broken bwrap refuses an LLM agent, telling to pass --sandbox none', () => {
    // bwrap as it fails where unprivileged user namespaces are off.
    const bin = tempDir();
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const args = ['run', 'examples', '--task', 'textkit-001', '--mirror', 'examples/mirror'];
    expectUserError(
      [...args, '--agent', 'nanocoder', '--model', 'competent', '--db', db],
      /^nanobench: --sandbox auto: bwrap unusable \(bwrap: setting up uid map: Permission denied\); an LLM agent does not run without a sandbox unless asked: fix bwrap or pass --sandbox none explicitly\n$/,
      { PATH: `${bin}:${process.env.PATH}` },
    );
  });
  it('nanocoder without a model', () =>
    expectUserError(['run', 'examples', '--agent', 'nanocoder', '--db', db], /needs --model/));
  it('an unknown scripted model', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nanocoder', '--model', 'gpt-9', '--db', db],
      /scripted model\(s\) gpt-9 not found/,
    ));
  it('a malformed task file names the file and the field', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ schema_version: 1, task_id: 'x', complexity_tier: 9 }),
    );
    const r = nanobench(['run', dir, '--agent', 'nop', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bad.json: field "complexity_tier": Number must be less than or equal to 4/,
    );
    expect(r.stderr).toMatch(/bad.json: field "repo": missing; expected string/);
  });
  it('--help explains the run command', () => {
    const r = nanobench(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--mode <mode>\s+hinted \| navigation \| both/);
  });
  it('report on an empty database', () =>
    expectUserError(['report', '--db', join(tempDir(), 'e.sqlite')], /no runs stored yet/));
});
