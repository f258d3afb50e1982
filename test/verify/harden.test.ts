// Verification hardening on a real directory pair: the env snapshot and the agent's workspace.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedTask } from '../../src/task/patches.js';
import { ctimeMark } from '../../src/util/fs-tree.js';
import { restoreInfrastructure, sanitizeWorkspace } from '../../src/verify/harden.js';

const PKG = {
  name: 'demo',
  version: '1.0.0',
  exports: { '.': './src/index.js' },
  scripts: { test: 'node --test test/' },
  jest: { testMatch: ['**/*.test.js'] },
};

function setup(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'nb-harden-'));
  const snap = join(root, 'snap');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(snap, rel)), { recursive: true });
    writeFileSync(join(snap, rel), text);
  }
  const ws = join(root, 'ws');
  execFileSync('cp', ['-a', snap, ws]);
  const since = ctimeMark(root);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  const read = (rel: string) => readFileSync(join(ws, rel), 'utf8');
  return { root, snap, ws, since, write, read };
}

const task = (o: Partial<ResolvedTask> = {}) =>
  ({
    test_suites: [
      {
        name: 'js',
        language: 'javascript',
        command: 'make test',
        format: 'node-tap',
        test_files: ['test/'],
      },
      {
        name: 'py',
        language: 'python',
        command: 'python3 -m unittest',
        format: 'unittest',
        test_files: ['tests/'],
        result_file: 'out/r.xml',
      },
    ],
    test_patch: '',
    ground_truth_patch: '',
    ...o,
  }) as unknown as ResolvedTask;

const BASE = {
  'package.json': `${JSON.stringify(PKG, null, 2)}\n`,
  'pyproject.toml': '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  'package-lock.json': '{"lockfileVersion":3}\n',
  Makefile: 'test:\n\tnode --test test/\n',
  'src/index.js': 'export const x = 1;\n',
  'test/a.test.js': 'test\n',
  'tests/test_a.py': 'pass\n',
  'pkg/__init__.py': '',
  'node_modules/dep/index.js': 'module.exports = 1;\n',
};

describe('restoreInfrastructure', () => {
  it('puts test infrastructure back and keeps the rest of the agent change', () => {
    const w = setup(BASE);
    const pkg = {
      ...PKG,
      exports: { '.': './src/index.js', './x': './src/x.js' },
      scripts: { test: 'exit 0' },
    };
    w.write('package.json', JSON.stringify(pkg, null, 2));
    w.write(
      'pyproject.toml',
      '[project]\nname = "demo2"\n\n[tool.pytest.ini_options]\naddopts = "-p cheat"\n',
    );
    w.write('package-lock.json', '{}');
    w.write('Makefile', 'test:\n\techo ok\n');
    w.write('conftest.py', 'cheat');
    w.write('sub/dir/vitest.config.ts', 'cheat');
    w.write('hook.pth', 'import x');
    w.write('.npmrc', 'script-shell=/x');
    w.write('difflib.py', 'cheat'); // shadows the stdlib at a sys.path root
    w.write('pkg/difflib.py', 'fine'); // inside a package: pkg.difflib, shadows nothing
    w.write('unittest/__init__.py', 'cheat');
    w.write('src/index.js', 'export const x = 2;\n');
    w.write('test/a.test.js', 'edited');
    w.write('out/r.xml', '<testsuites/>');
    w.write('node_modules/dep/index.js', 'module.exports = 2;\n');
    const home = join(w.root, 'verify-home');
    mkdirSync(join(home, '.local'), { recursive: true });
    const r = restoreInfrastructure(w.ws, w.snap, task(), w.since, home);
    expect(r.touchedTests).toEqual(['test']);
    expect(r.resultFiles).toEqual(['out/r.xml']);
    expect(r.touchedInfra).toEqual(
      [
        `${home} (HOME of the test runs)`,
        '.npmrc',
        'Makefile',
        'conftest.py',
        'difflib.py',
        'hook.pth',
        'node_modules/',
        'package-lock.json',
        'package.json',
        'pyproject.toml',
        'sub/dir/vitest.config.ts',
        'unittest',
      ].sort(),
    );
    const merged = JSON.parse(w.read('package.json'));
    expect(merged.scripts).toEqual(PKG.scripts);
    expect(merged.exports['./x']).toBe('./src/x.js'); // not test infrastructure: kept
    expect(w.read('pyproject.toml')).toBe(
      '[project]\nname = "demo2"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    );
    for (const gone of [
      'conftest.py',
      'hook.pth',
      '.npmrc',
      'difflib.py',
      'unittest',
      'out/r.xml',
      'sub/dir/vitest.config.ts',
    ])
      expect(existsSync(join(w.ws, gone)), gone).toBe(false);
    expect(w.read('pkg/difflib.py')).toBe('fine');
    expect(w.read('src/index.js')).toBe('export const x = 2;\n');
    expect(w.read('node_modules/dep/index.js')).toBe('module.exports = 1;\n');
    expect(w.read('Makefile')).toBe(BASE.Makefile);
    expect(existsSync(home)).toBe(false);
  });

  it('sees a dependency changed behind a forged mtime, but not one merely touched', () => {
    const w = setup(BASE);
    const f = join(w.ws, 'node_modules/dep/index.js');
    const { atime, mtime } = lstatSync(f);
    writeFileSync(f, 'module.exports = 9;\n'); // same size
    utimesSync(f, atime, mtime);
    expect(restoreInfrastructure(w.ws, w.snap, task(), w.since).touchedInfra).toEqual([
      'node_modules/',
    ]);
    expect(w.read('node_modules/dep/index.js')).toBe('module.exports = 1;\n');
    const v = setup(BASE);
    utimesSync(join(v.ws, 'node_modules/dep/index.js'), new Date(), new Date());
    expect(restoreInfrastructure(v.ws, v.snap, task(), v.since).touchedInfra).toEqual([]);
  });

  it('interpreter caches the agent left by running the tests are no change', () => {
    const w = setup(BASE);
    w.write('tests/__pycache__/test_a.cpython-311.pyc', 'bytecode');
    expect(restoreInfrastructure(w.ws, w.snap, task(), w.since).touchedTests).toEqual([]);
  });

  it('leaves alone what the PR itself changes, and reports nothing for a clean workspace', () => {
    const w = setup(BASE);
    expect(restoreInfrastructure(w.ws, w.snap, task(), w.since)).toEqual({
      touchedTests: [],
      touchedInfra: [],
      resultFiles: [],
    });
    w.write('Makefile', 'test:\n\tnode --test --foo test/\n');
    const golden = 'diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/Makefile\n';
    expect(
      restoreInfrastructure(w.ws, w.snap, task({ ground_truth_patch: golden }), w.since)
        .touchedInfra,
    ).toEqual([]);
    expect(w.read('Makefile')).toContain('--foo');
  });
});

describe('sanitizeWorkspace', () => {
  it('removes escaping symlinks and special files, keeps links inside, makes files readable', () => {
    const w = setup({ ...BASE, 'link-at-base': '' });
    symlinkSync('/etc/passwd', join(w.ws, 'abs-out'));
    symlinkSync('../../outside', join(w.ws, 'src/rel-out'));
    symlinkSync('index.js', join(w.ws, 'src/inside'));
    execFileSync('mkfifo', [join(w.ws, 'pipe')]);
    chmodSync(join(w.ws, 'src/index.js'), 0);
    const r = sanitizeWorkspace(w.ws, w.snap);
    expect(r.escapingSymlinks).toEqual(['abs-out -> /etc/passwd', 'src/rel-out -> ../../outside']);
    expect(r.specialFiles).toEqual(['pipe']);
    expect(lstatSync(join(w.ws, 'src/inside')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(w.ws, 'src/index.js')).mode & 0o600).toBe(0o600);
  });
});
