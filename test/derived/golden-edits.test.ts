// The golden change as Nanocoder tool calls, built from real git diffs of small repositories
// written here: whatever the calls are, replaying them the way Nanocoder 1.30's tools apply them
// must give the golden content, and what cannot be built must say why. The bare agent's replies
// (src/derived/bare-replies.ts) must parse back into the same files.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_BARE_READS, parseEdits, parseReads } from '../../src/agent/bare-format.js';
import { bareBehaviourSteps } from '../../src/derived/bare-replies.js';
import { baseTree } from '../../src/derived/base-tree.js';
import { behaviourSteps, deriveTask, WANDER_FILES } from '../../src/derived/behaviours.js';
import {
  type GoldenChange,
  goldenChange,
  isUnbuildable,
  READ_WHOLE_MAX_LINES,
} from '../../src/derived/golden-edits.js';
import { parseUnifiedDiff } from '../../src/derived/unified-diff.js';
import type { ScriptToolCall, Step } from '../../src/provider/script-schema.js';
import type { ResolvedTask } from '../../src/task/patches.js';
import { PATCH_DIFF_ARGS } from '../../src/task/patches.js';
import { GIT_ENV } from '../../src/util/git.js';
import { tempDir } from '../helpers/cli.js';

type Files = Record<string, string | null>;

const git = (dir: string, args: string[]) =>
  execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' });

function writeAll(dir: string, files: Files) {
  for (const [p, content] of Object.entries(files)) {
    const full = join(dir, p);
    if (content === null) rmSync(full, { force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
}

/** A repository with `base` committed, then `golden` on top: the patch and the base tree. */
function repo(base: Files, golden: Files, tweak?: (dir: string) => void) {
  const dir = tempDir('nb-derived-');
  git(dir, ['init', '-q']);
  writeAll(dir, base);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'base']);
  const baseCommit = git(dir, ['rev-parse', 'HEAD']).trim();
  writeAll(dir, golden);
  tweak?.(dir);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'golden']);
  const patch = git(dir, [...PATCH_DIFF_ARGS, baseCommit, 'HEAD', '--']);
  return { dir, baseCommit, patch, tree: baseTree(dir, baseCommit) };
}

/** The files as Nanocoder's tools leave them after these calls (string_replace is String.replace). */
function replay(base: Files, calls: ScriptToolCall[]): Files {
  const files: Files = { ...base };
  const read = new Set<string>();
  for (const c of calls) {
    const path = String(c.args.path);
    if (c.tool === 'read_file') read.add(path);
    else if (c.tool === 'write_file') files[path] = String(c.args.content);
    else if (c.tool === 'string_replace') {
      // Nanocoder refuses to edit a file it has not read, and an old_str found more than once.
      expect(read.has(path), `${path} read before string_replace`).toBe(true);
      const text = files[path] ?? '';
      const old = String(c.args.old_str);
      expect(text.split(old).length - 1, `old_str unique in ${path}`).toBe(1);
      files[path] = text.replace(old, String(c.args.new_str));
    } else if (c.tool === 'file_op' && c.args.operation === 'delete') files[path] = null;
  }
  return files;
}

const callsOf = (steps: Step[]) => steps.flatMap((s) => ('tools' in s ? s.tools : []));

function golden(base: Files, after: Files, tweak?: (dir: string) => void): GoldenChange {
  const r = repo(base, after, tweak);
  const change = goldenChange(parseUnifiedDiff(r.patch), r.tree);
  if (isUnbuildable(change)) throw new Error(change.unbuildable);
  return change;
}

function task(patch: string, required: string[], id = 't-1'): ResolvedTask {
  return {
    task_id: id,
    ground_truth_patch: patch,
    required_files: required,
  } as unknown as ResolvedTask;
}

const lines = (n: number, f = (i: number) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => `${f(i)}\n`).join('');

describe('golden edits', () => {
  it('a small change becomes string_replace calls that give the golden file, after a read', () => {
    const before = { 'src/a.js': lines(40) };
    const after = { 'src/a.js': lines(40).replace('line 7\n', 'line seven\n') };
    const change = golden(before, after);
    const edit = change.edits[0];
    expect(edit.action).toBe('modify');
    expect(edit.action === 'modify' && edit.replacements?.length).toBe(1);
    const r = repo(before, after);
    const steps = behaviourSteps(deriveTask(task(r.patch, ['src/a.js']), r.tree), 'golden');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    expect(replay(before, callsOf(steps))).toEqual(after);
    expect(steps.at(-1)).toHaveProperty('final');
  });

  it('repeated lines: each old_str grows until it is unique, and the file still comes out golden', () => {
    const body = 'x = 1\n'.repeat(10);
    const before = { 'm.py': `${body}y = 2\n${body}` };
    const after = { 'm.py': `${body}y = 3\n${body}` };
    const change = golden(before, after);
    const calls = change.edits.flatMap((e) =>
      e.action === 'modify' && e.replacements
        ? [
            { tool: 'read_file', args: { path: e.path } },
            ...e.replacements.map((x) => ({
              tool: 'string_replace',
              args: { path: e.path, ...x },
            })),
          ]
        : [],
    );
    expect(calls.length).toBe(2);
    expect(replay(before, calls)).toEqual(after);
  });

  it('new text holding $& (a String.replace pattern) is written whole, not replaced', () => {
    const before = { 'a.js': lines(30) };
    const after = { 'a.js': lines(30).split('line 3\n').join("s.replace(/x/, '$&$&')\n") };
    const e = golden(before, after).edits[0];
    if (e.action !== 'modify') throw new Error(e.action);
    expect(e.replacements).toBeUndefined();
    expect(e.after).toBe(after['a.js']);
  });

  it('a rewrite of most of a file is one write_file', () => {
    const before = { 'a.py': lines(10) };
    const after = { 'a.py': lines(10, (i) => `other ${i}`) };
    const e = golden(before, after).edits[0];
    expect(e.action === 'modify' && e.replacements).toBeUndefined();
  });

  it('a new file in a new directory: mkdir parents first, then write_file; a deleted file: file_op delete', () => {
    const before = { 'keep.js': 'a\n', 'old.js': 'gone\n' };
    const after = { 'lib/deep/new.js': 'export const n = 1;\n', 'old.js': null };
    const change = golden(before, after);
    expect(change.mkdirs).toEqual(['lib', 'lib/deep']);
    expect(change.edits.map((e) => [e.path, e.action])).toEqual([
      ['lib/deep/new.js', 'create'],
      ['old.js', 'delete'],
    ]);
  });

  it('a file over 1500 lines is read in ranges around its hunks, not whole', () => {
    const n = READ_WHOLE_MAX_LINES + 500;
    const before = { 'big.js': lines(n) };
    const after = { 'big.js': lines(n).replace('line 1700\n', 'line 1700 fixed\n') };
    const e = golden(before, after).edits[0];
    if (e.action !== 'modify') throw new Error(e.action);
    // "line 1700" is line 1701: one range holds it, with a few lines of margin, far from whole.
    expect(e.reads).toHaveLength(1);
    const [{ start_line = 0, end_line = 0 }] = e.reads;
    expect(start_line).toBeLessThan(1701);
    expect(end_line).toBeGreaterThan(1701);
    expect(end_line - start_line).toBeLessThan(30);
  });

  it('files without a final newline, and names git quotes, come out exactly golden', () => {
    const before = { 'src/no eol.py': 'a = 1\nb = 2', 'src/caf\u00e9.js': lines(20) };
    const after = {
      'src/no eol.py': 'a = 1\nb = 3',
      'src/caf\u00e9.js': lines(20).replace('line 9\n', 'line nine\n'),
    };
    const change = golden(before, after);
    expect(
      Object.fromEntries(change.edits.map((e) => [e.path, e.action !== 'delete' && e.after])),
    ).toEqual(after);
  });

  it('binary files and mode changes cannot be built: the reason names the file', () => {
    const bin = repo({ 'a.bin': 'x\0y' }, { 'a.bin': 'x\0z' });
    expect(goldenChange(parseUnifiedDiff(bin.patch), bin.tree)).toEqual({
      unbuildable: expect.stringContaining('a.bin is a binary file'),
    });
    const mode = repo({ 'run.sh': 'echo 1\n' }, { 'run.sh': 'echo 2\n' }, (d) =>
      chmodSync(join(d, 'run.sh'), 0o755),
    );
    expect(goldenChange(parseUnifiedDiff(mode.patch), mode.tree)).toEqual({
      unbuildable: expect.stringContaining('run.sh changes its mode'),
    });
  });
});

describe('behaviours built on the golden change', () => {
  const base: Files = {
    'src/fix.js': lines(40),
    'README.md': 'readme\n',
    ...Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`docs/d${i}.md`, `doc ${i}\n`])),
  };
  const after: Files = { 'src/fix.js': lines(40).replace('line 2\n', 'line two\n') };

  it('hallucinated: the golden file plus a module-level call of a name the repository never mentions', () => {
    const r = repo(base, after);
    const d = deriveTask(task(r.patch, ['src/fix.js']), r.tree);
    const steps = behaviourSteps(d, 'hallucinated');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    const out = replay(base, callsOf(steps))['src/fix.js'] ?? '';
    const name = d.undefinedNames.javascript;
    expect(out).toBe(`${after['src/fix.js']}${name}();\n`);
    expect(r.tree.mentions(name)).toBe(false);
    // The same task gives the same name on every run; another task, another name.
    expect(deriveTask(task(r.patch, ['src/fix.js']), r.tree).undefinedNames.javascript).toBe(name);
    expect(
      deriveTask(task(r.patch, ['src/fix.js'], 't-2'), r.tree).undefinedNames.javascript,
    ).not.toBe(name);
  });

  it('interface: the golden file plus a constructor call of Math.max (JS) or len(1, 2) (Python)', () => {
    const r = repo(base, after);
    const steps = behaviourSteps(deriveTask(task(r.patch, ['src/fix.js']), r.tree), 'interface');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    expect(replay(base, callsOf(steps))['src/fix.js']).toBe(
      `${after['src/fix.js']}new Math.max();\n`,
    );
    const py = repo({ 'm.py': lines(20) }, { 'm.py': lines(20).replace('line 1\n', 'x\n') });
    const pySteps = behaviourSteps(deriveTask(task(py.patch, ['m.py']), py.tree), 'interface');
    if (isUnbuildable(pySteps)) throw new Error(pySteps.unbuildable);
    expect(replay({ 'm.py': lines(20) }, callsOf(pySteps))['m.py']?.endsWith('len(1, 2)\n')).toBe(
      true,
    );
  });

  it('no module in the required files: hallucinated and interface say so, golden still builds', () => {
    const r = repo({ 'conf.toml': 'a = 1\n' }, { 'conf.toml': 'a = 2\n' });
    const d = deriveTask(task(r.patch, ['conf.toml']), r.tree);
    expect(behaviourSteps(d, 'hallucinated')).toEqual({
      unbuildable: expect.stringContaining('no module-level place in a required file'),
    });
    expect(isUnbuildable(behaviourSteps(d, 'golden'))).toBe(false);
  });

  it('wanderer: reads files outside required_files only, enough for the files-read threshold', () => {
    const r = repo(base, after);
    const steps = behaviourSteps(deriveTask(task(r.patch, ['src/fix.js']), r.tree), 'wanderer');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    const paths = callsOf(steps).map((c) => c.args.path);
    expect(callsOf(steps).every((c) => c.tool === 'read_file')).toBe(true);
    expect(new Set(paths).size).toBe(WANDER_FILES);
    expect(paths).not.toContain('src/fix.js');
    const small = repo({ 'a.js': 'a\n', 'b.js': 'b\n' }, { 'a.js': 'A\n' });
    expect(behaviourSteps(deriveTask(task(small.patch, ['a.js']), small.tree), 'wanderer')).toEqual(
      {
        unbuildable: expect.stringContaining('only 1 text files outside required_files'),
      },
    );
  });
});

describe('the same behaviours to the bare agent, in its text format', () => {
  const base: Files = {
    'src/fix.js': lines(40),
    'src/old.js': 'gone\n',
    ...Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`docs/d${i}.md`, `doc ${i}\n`])),
  };
  const after: Files = {
    'src/fix.js': lines(40).replace('line 2\n', 'line two\n'),
    'src/new.js': 'fence\n```\ninside\n',
    'src/old.js': null,
  };
  const derived = () => {
    const r = repo(base, after);
    return deriveTask(task(r.patch, ['src/fix.js']), r.tree);
  };
  const finals = (steps: Step[]) => steps.map((s) => ('final' in s ? s.final : JSON.stringify(s)));

  it('golden: one answer that the bare agent parses back into the golden files', () => {
    const steps = bareBehaviourSteps(derived(), 'golden');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    expect(steps).toHaveLength(1);
    const parsed = parseEdits(finals(steps)[0]);
    expect(parsed).toEqual({
      ok: true,
      edits: [
        { path: 'src/fix.js', content: after['src/fix.js'] },
        { path: 'src/new.js', content: after['src/new.js'] },
      ],
    });
    // The format cannot delete: the deletion is said, not made.
    expect(finals(steps)[0]).toContain(
      'should also be deleted, which this format cannot do: src/old.js',
    );
  });

  it('hallucinated: the golden files plus the call of a name the repository never mentions', () => {
    const d = derived();
    const steps = bareBehaviourSteps(d, 'hallucinated');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    const parsed = parseEdits(finals(steps)[0]);
    expect(parsed.ok && parsed.edits[0].content).toBe(
      `${after['src/fix.js']}${d.undefinedNames.javascript}();\n`,
    );
  });

  it('wanderer asks to read files, then answers no change; nothing answers no change', () => {
    const steps = bareBehaviourSteps(derived(), 'wanderer');
    if (isUnbuildable(steps)) throw new Error(steps.unbuildable);
    const [reads, last] = finals(steps);
    expect(parseReads(reads)).toHaveLength(MAX_BARE_READS);
    expect(parseReads(reads)).not.toContain('src/fix.js');
    expect(parseEdits(last).ok).toBe(false);
    const nothing = bareBehaviourSteps(derived(), 'nothing');
    expect(!isUnbuildable(nothing) && parseEdits(finals(nothing)[0]).ok).toBe(false);
    expect(bareBehaviourSteps(derived(), 'overflow')).toEqual([{ fail: 'context_http' }]);
  });

  it('a golden change that only deletes cannot be played in a format that only replaces files', () => {
    const r = repo({ 'a.js': 'a\n', 'b.js': 'b\n' }, { 'b.js': null });
    expect(bareBehaviourSteps(deriveTask(task(r.patch, ['b.js']), r.tree), 'golden')).toEqual({
      unbuildable: expect.stringContaining('cannot delete one'),
    });
  });
});
