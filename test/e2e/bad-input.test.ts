// Issue 12, the cases that need trials: a task named twice, a problem statement too big for the
// environment, and a run in which no trial could be scored.
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, runJson, tempDir } from '../helpers/cli.js';

const TEXTKIT = join(EXAMPLES, 'tasks', 'textkit-001.json');
const MIRROR = join(EXAMPLES, 'mirror');
const textkit = () => JSON.parse(readFileSync(TEXTKIT, 'utf8'));

describe('the same task named twice', () => {
  it('the same file twice runs its task once, with a note on stderr', () => {
    const db = join(tempDir(), 'r.sqlite');
    const args = ['run', TEXTKIT, TEXTKIT, '--agent', 'nop', '--sandbox', 'none', '--db', db];
    const r = nanobench([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/textkit-001\.json: named twice; its task textkit-001 runs once/);
    const out = JSON.parse(r.stdout);
    expect(out.trials).toHaveLength(1);
    expect(out.plan_size).toBe(1);
    expect(out.status).toBe('finished');
  });

  it('two different files with the same task_id are refused, naming both', () => {
    const dir = tempDir();
    const copy = join(dir, 'copy.json');
    cpSync(TEXTKIT, copy);
    const r = nanobench(['run', TEXTKIT, copy, '--agent', 'nop', '--db', join(dir, 'r.sqlite')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `task_id "textkit-001" is used by two files: ${TEXTKIT} and ${copy}`,
    );
  });
});

describe('a 1 MB problem statement reaches a command agent', () => {
  it('in a file and on stdin (the environment only carries short prompts); the trial is scored', () => {
    const dir = tempDir();
    const task = textkit();
    task.task_id = 'textkit-001-big';
    const line = 'The truncate() function must count the ellipsis in maxLength.\n';
    task.problem_statement = `${line.repeat(Math.ceil(1_048_576 / line.length))}END-OF-STATEMENT\n`;
    writeFileSync(join(dir, 'big.json'), JSON.stringify(task));
    // The agent checks what it was given, then makes pass.sh's fix (the whole agent is one file:
    // in the sandbox a command agent sees its script, not its directory).
    const agent = join(dir, 'agent.sh');
    const fix = readFileSync(join(EXAMPLES, '..', 'test/fixtures/agents/pass.sh'), 'utf8').replace(
      /^if \[[\s\S]*?^fi\n/m,
      '',
    );
    writeFileSync(
      agent,
      `#!/usr/bin/env bash
set -euo pipefail
test -n "\${NANOBENCH_PROMPT_FILE:-}" || { echo "no NANOBENCH_PROMPT_FILE" >&2; exit 9; }
test -z "\${NANOBENCH_PROMPT+set}" || { echo "NANOBENCH_PROMPT set for a 1 MB prompt" >&2; exit 9; }
size=$(wc -c < "$NANOBENCH_PROMPT_FILE")
test "$size" -gt 1048576 || { echo "prompt file has $size bytes" >&2; exit 9; }
grep -q END-OF-STATEMENT "$NANOBENCH_PROMPT_FILE" || { echo "prompt file cut short" >&2; exit 9; }
cmp -s - "$NANOBENCH_PROMPT_FILE" || { echo "stdin differs from the prompt file" >&2; exit 9; }
echo "agent: got the $size-byte prompt in a file and on stdin"
${fix}`,
    );
    chmodSync(agent, 0o755);
    const out = runJson([
      'run',
      dir,
      '--agent',
      `command:${agent}`,
      '--mirror',
      MIRROR,
      '--db',
      join(dir, 'r.sqlite'),
    ]);
    expect(out.trials).toHaveLength(1);
    const [t] = out.trials;
    expect(t, JSON.stringify(t)).toMatchObject({
      status: 'scored',
      exit_kind: 'success',
      label: 'pass',
      score: 1,
    });
  });
});

describe('exit 1: a run in which no trial could be scored', () => {
  it('says so on stderr and exits 1', () => {
    const dir = tempDir();
    const broken = textkit();
    broken.task_id = 'textkit-001-broken';
    broken.test_patch =
      'diff --git a/test/x.js b/test/x.js\n--- a/test/x.js\n+++ b/test/x.js\n@@ -1 +1 @@\n-nope\n+still nope\n';
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    const args = ['run', dir, '--agent', 'nop', '--sandbox', 'none', '--mirror', MIRROR];
    const r = nanobench([...args, '--db', join(dir, 'r.sqlite'), '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout).trials[0]).toMatchObject({ status: 'error' });
    expect(r.stderr).toMatch(
      /every trial of the run was an infrastructure error, nothing was scored \(verify\/[a-z_]+ ×1\)/,
    );
  });
});
