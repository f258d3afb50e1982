// The golden change of a task as data: per file, its content before and after, and the
// replacements that turn one into the other the way Nanocoder's string_replace applies them.
// Any agent's scripted replies can be built from it (Nanocoder's tool calls: behaviours.ts).
import { asText, type BaseTree } from './base-tree.js';
import { applyHunks, type FileDiff, type Hunk, isBlob, splitLines } from './unified-diff.js';

export interface Replacement {
  old_str: string;
  new_str: string;
}

/** A range of lines to read (1-based, inclusive); none = the whole file. */
export interface ReadRange {
  start_line?: number;
  end_line?: number;
}

export type GoldenEdit =
  | {
      path: string;
      action: 'modify';
      before: string;
      after: string;
      /** Present when string_replace can make the change; otherwise write the whole file. */
      replacements?: Replacement[];
      /** How to read the file before editing it (Nanocoder refuses to edit an unread file). */
      reads: ReadRange[];
    }
  | { path: string; action: 'create'; after: string }
  | { path: string; action: 'delete'; before: string; reads: ReadRange[] };

export interface GoldenChange {
  edits: GoldenEdit[];
  /** Directories the new files need that the base lacks, parents first. */
  mkdirs: string[];
}

/** Why a behaviour cannot be built for a task, in a sentence. */
export interface Unbuildable {
  unbuildable: string;
}

export const isUnbuildable = (x: unknown): x is Unbuildable =>
  typeof x === 'object' && x !== null && 'unbuildable' in x;

// Nanocoder 1.30's read_file: files over 1500 lines come back as a 250-line preview, and a range
// holding a line over 10,000 characters is refused ("minified or binary content").
export const READ_WHOLE_MAX_LINES = 1500;
export const MAX_LINE_CHARS = 10_000;
/** Lines read on each side of an edited region of a large file. */
const READ_MARGIN = 5;

// A file is rewritten with write_file when string_replace would take more than this many calls,
// or when the regions it replaces are more than half of the file.
export const MAX_REPLACES = 3;
/** Context lines a replacement may grow by, on each side, to make its old_str unique. */
const MAX_GROW = 20;

/**
 * Nanocoder 1.30's string_replace calls String.prototype.replace(old_str, new_str), which reads
 * `$$`, `$&`, `` $` `` and `$'` in new_str as replacement patterns: such a new_str would not land
 * as written, so the file is rewritten instead.
 */
export const REPLACE_PATTERN = /\$[$&`']/;

const occurrences = (hay: string, needle: string) => hay.split(needle).length - 1;

/** How to read a file before editing it: whole, or the ranges around its hunks. */
export function readsFor(content: string, hunks: Hunk[]): ReadRange[] | Unbuildable {
  const lines = splitLines(content);
  const long = (from: number, to: number) =>
    lines.slice(from - 1, to).findIndex((l) => l.replace(/\r?\n$/, '').length > MAX_LINE_CHARS);
  if (lines.length <= READ_WHOLE_MAX_LINES && long(1, lines.length) < 0) return [{}];
  const ranges: ReadRange[] = [];
  for (const h of hunks.length ? hunks : [{ oldStart: 1, oldCount: 1 }]) {
    const start = Math.max(1, h.oldStart - READ_MARGIN);
    const end = Math.min(lines.length, h.oldStart + h.oldCount + READ_MARGIN);
    if (long(start, end) < 0) ranges.push({ start_line: start, end_line: end });
  }
  if (ranges.length) return ranges;
  return {
    unbuildable: `every part of it to edit has a line over ${MAX_LINE_CHARS} characters, which Nanocoder 1.30's read_file refuses to return (minified or binary content)`,
  };
}

/**
 * The string_replace calls that turn `before` into `after`, hunk by hunk as Nanocoder would
 * apply them in order (each old_str unique in the file as it is then), or undefined when the
 * file is better (or only) rewritten whole.
 */
export function replacementsFor(
  before: string,
  after: string,
  hunks: Hunk[],
): Replacement[] | undefined {
  if (hunks.length === 0 || hunks.length > MAX_REPLACES) return undefined;
  const oldSize = hunks.reduce(
    (n, h) => n + h.lines.filter((l) => l.op !== '+').reduce((m, l) => m + l.text.length, 0),
    0,
  );
  if (oldSize * 2 > before.length) return undefined;
  let current = before;
  const out: Replacement[] = [];
  for (const h of hunks) {
    if (h.oldCount === 0) return undefined; // nothing to find: an empty file
    const lines = splitLines(current);
    const first = h.newStart - 1; // the earlier hunks made the lines before it golden
    const newText = h.lines
      .filter((l) => l.op !== '-')
      .map((l) => l.text)
      .join('');
    let r: Replacement | undefined;
    for (let grow = 0; grow <= MAX_GROW && !r; grow++) {
      const from = Math.max(0, first - grow);
      const to = Math.min(lines.length, first + h.oldCount + grow);
      const head = lines.slice(from, first).join('');
      const tail = lines.slice(first + h.oldCount, to).join('');
      const old_str = head + lines.slice(first, first + h.oldCount).join('') + tail;
      if (occurrences(current, old_str) === 1) r = { old_str, new_str: head + newText + tail };
      if (from === 0 && to === lines.length) break;
    }
    if (!r || REPLACE_PATTERN.test(r.new_str)) return undefined;
    const at = current.indexOf(r.old_str);
    current = current.slice(0, at) + r.new_str + current.slice(at + r.old_str.length);
    out.push(r);
  }
  return current === after ? out : undefined;
}

/** A statement added at the end of `content` (after a newline), as one more replacement. */
export function appendReplacement(content: string, statement: string): Replacement | undefined {
  const lines = splitLines(content);
  for (let k = 1; k <= Math.min(lines.length, MAX_GROW); k++) {
    const old_str = lines.slice(-k).join('');
    if (!old_str.trim() || occurrences(content, old_str) !== 1) continue;
    const sep = old_str.endsWith('\n') ? '' : '\n';
    const r = { old_str, new_str: `${old_str}${sep}${statement}\n` };
    return REPLACE_PATTERN.test(r.new_str) ? undefined : r;
  }
  return undefined;
}

const parentsOf = (p: string) => {
  const parts = p.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
};

function fileProblem(f: FileDiff): string | undefined {
  if (f.binary) return `${f.path} is a binary file (the patch carries no text for it)`;
  const modes = [f.oldMode, f.newMode].filter(Boolean);
  if (modes.includes('120000')) return `${f.path} is a symbolic link`;
  if (modes.includes('160000')) return `${f.path} is a submodule`;
  if (f.status === 'modified' && f.oldMode && f.newMode && f.oldMode !== f.newMode)
    return `${f.path} changes its mode (${f.oldMode} -> ${f.newMode}), which Nanocoder's file tools cannot do`;
  return undefined;
}

/** The golden change of a task from its golden patch and the base tree. */
export function goldenChange(files: FileDiff[], tree: BaseTree): GoldenChange | Unbuildable {
  const edits: GoldenEdit[] = [];
  const dirs = new Set(tree.files.flatMap((f) => parentsOf(f.path)));
  const mkdirs: string[] = [];
  for (const f of files) {
    const problem = fileProblem(f);
    if (problem) return { unbuildable: problem };
    if (f.status === 'added') {
      const after = applyHunks('', f.hunks);
      if (!isBlob(after, f.newBlob))
        return { unbuildable: `${f.path}: the patch's text does not give its object ${f.newBlob}` };
      for (const d of parentsOf(f.path))
        if (!dirs.has(d)) {
          dirs.add(d);
          mkdirs.push(d);
        }
      edits.push({ path: f.path, action: 'create', after });
      continue;
    }
    const entry = tree.byPath.get(f.path);
    if (!entry) return { unbuildable: `${f.path} is not in the repository at base_commit` };
    const before = asText(tree.read(entry.blob));
    if (before === undefined)
      return {
        unbuildable: `${f.path} is not UTF-8 text (Nanocoder's tools read and write UTF-8)`,
      };
    const reads = readsFor(before, f.hunks);
    if ('unbuildable' in reads) return { unbuildable: `${f.path}: ${reads.unbuildable}` };
    if (f.status === 'deleted') {
      edits.push({ path: f.path, action: 'delete', before, reads });
      continue;
    }
    let after: string;
    try {
      after = applyHunks(before, f.hunks);
    } catch (e) {
      return { unbuildable: `${f.path}: the patch does not apply (${(e as Error).message})` };
    }
    if (!isBlob(after, f.newBlob))
      return { unbuildable: `${f.path}: the patch's text does not give its object ${f.newBlob}` };
    const replacements = replacementsFor(before, after, f.hunks);
    edits.push({
      path: f.path,
      action: 'modify',
      before,
      after,
      reads,
      ...(replacements && { replacements }),
    });
  }
  if (edits.length === 0) return { unbuildable: 'the golden patch changes no file' };
  return { edits, mkdirs };
}
