// Issue 24: test commands that keep the runner's reporter options out of process.argv.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jestCommand, mochaCommand, pytestCommand, shellQuote } from '../../src/task/argv-free.js';

describe('argv-free runner commands', () => {
  it('jest and mocha get their arguments as one list, unquoted, inside node -e', () => {
    expect(jestCommand(['--ci', '"test/a b.js"'])).toBe(
      `node -e 'require("jest").run(["--ci","test/a b.js"])'`,
    );
    expect(mochaCommand(['--reporter', 'tap', "'test/**/*.js'"], 10)).toBe(
      `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","test/**/*.js"])'`,
    );
  });

  it('mocha stays "npx mocha" where its CLI entry would not honour the arguments', () => {
    expect(mochaCommand(['--reporter', 'tap', '--experimental-vm-modules'], 10)).toBeUndefined();
    expect(mochaCommand(['--reporter', 'tap', '--node-option', 'x'], 10)).toBeUndefined();
    expect(mochaCommand(['--reporter', 'tap'], 5)).toBeUndefined();
  });

  it('a quote in an argument survives the shell', () => {
    const cmd = jestCommand(["it's.test.js"]);
    const script = execFileSync('/bin/sh', ['-c', `printf %s ${shellQuote(cmd)}`], {
      encoding: 'utf8',
    });
    expect(script).toBe(cmd);
    const seen = execFileSync(
      '/bin/sh',
      ['-c', cmd.replace('require("jest").run', 'console.log')],
      {
        encoding: 'utf8',
      },
    );
    expect(seen.trim()).toBe('[ "it\'s.test.js" ]');
  });

  it("pytest's reporter options go in PYTEST_ADDOPTS, the files stay", () => {
    expect(
      pytestCommand('PYTHONPATH=src ', 'python3', ['-q', '--junitxml=r.xml'], ['t/a.py']),
    ).toBe("PYTHONPATH=src PYTEST_ADDOPTS='-q --junitxml=r.xml' python3 -m pytest t/a.py");
  });
});
