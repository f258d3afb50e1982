// node --test --test-reporter=spec (Node 20 and 22). Marks: ✔ pass, ✖ fail, ﹣ skip, ▶ a suite
// (opened before its children, closed by a line with its own name at the same indent).
// Only leaves are reported. Failure details: Node 20 prints them under the test and again in
// the closing "✖ failing tests:" section, Node 22 only there; we match that section by name.
// A test file that failed to load is a failed top-level entry named by its path; node's ids do
// not name files, so its error is a file error for every test of the suite that did not report.
import type { FileError, Parser, TestOutcome, TestResult } from '../types.js';
import {
  finish,
  indentOf,
  looksLikeFile,
  splitLines,
  stripAnsi,
  trimBlankLines,
} from './common.js';

const MARK = /^( *)([\u2714\u2716\uFE63\u25B6\u2139\u26A0]) (.*)$/u;
const PASS = '\u2714';
const FAIL = '\u2716';
const SUITE = '\u25B6';
const INFO = ['\u2139', '\u26A0'];
const FAILING_HEADER = /^\u2716 failing tests:\s*$/u;

/** "name (1.2ms) # reason": the duration comes before a skip/todo directive. */
function parseTitle(rest: string): { name: string; timed: boolean; directive?: string } {
  const m = /^(.*) \(\d+(?:\.\d+)?ms\)(?: # (.*))?$/s.exec(rest);
  if (!m) return { name: rest, timed: false };
  return m[2] === undefined
    ? { name: m[1], timed: true }
    : { name: m[1], timed: true, directive: m[2] };
}

interface Entry {
  path: string[];
  name: string;
  outcome: TestOutcome;
  indent: number;
  inline: string[];
  /** Output printed just before a failed test (a file's crash output). */
  before: string[];
}

interface Suite {
  indent: number;
  name: string;
  failedLeaf: boolean;
}

export const parse: Parser = (raw) => {
  const lines = splitLines(stripAnsi(raw.stdout));
  const entries: Entry[] = [];
  const stack: Suite[] = [];
  let target: Entry | null = null;
  let pending: string[] = [];
  let i = 0;
  const add = (path: string[], outcome: TestOutcome, indent: number): Entry => {
    const e: Entry = { path, name: path[path.length - 1], outcome, indent, inline: [], before: [] };
    if (outcome === 'failed') {
      e.before = pending;
      target = e;
      for (const s of stack) s.failedLeaf = true;
    }
    entries.push(e);
    return e;
  };
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (FAILING_HEADER.test(line)) break;
    const m = MARK.exec(line);
    if (!m) {
      const t = target as Entry | null;
      if (t && (line.trim() === '' || indentOf(line) > t.indent))
        t.inline.push(line.slice(Math.min(t.indent + 2, indentOf(line))));
      else {
        target = null;
        pending.push(line);
      }
      continue;
    }
    target = null;
    const indent = m[1].length;
    const mark = m[2];
    if (INFO.includes(mark)) {
      pending = [];
      continue;
    }
    const { name, timed, directive } = parseTitle(m[3]);
    const top = stack[stack.length - 1];
    if (top && top.indent === indent && top.name === name && (mark !== SUITE || timed)) {
      // The suite's closing line. A suite failing on its own (a hook) keeps its failure.
      stack.pop();
      if (mark === FAIL && !top.failedLeaf && directive === undefined)
        add([...stack.map((s) => s.name), name], 'failed', indent);
      pending = [];
      continue;
    }
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    if (mark === SUITE) {
      stack.push({ indent, name, failedLeaf: false });
      pending = [];
      continue;
    }
    const outcome: TestOutcome =
      directive !== undefined
        ? 'skipped'
        : mark === PASS
          ? 'passed'
          : mark === FAIL
            ? 'failed'
            : 'skipped';
    add([...stack.map((s) => s.name), name], outcome, indent);
    pending = [];
  }

  const details = readFailingSection(lines, i + 1);
  const tests = entries.map((e): TestResult => {
    const r: TestResult = { id: e.path.join(' > '), outcome: e.outcome };
    if (e.outcome !== 'failed') return r;
    const fromSection = details.get(e.name)?.shift();
    const message = trimBlankLines([...e.before, ...(fromSection ?? e.inline)].join('\n'));
    if (message !== '') r.message = message;
    return r;
  });
  const fileErrors: FileError[] = tests
    .filter((t) => t.outcome === 'failed' && looksLikeFile(t.id))
    .map((t) => ({ file: t.id, message: t.message ?? '', idPrefixes: [] }));
  return finish(raw, tests, {
    fileErrors,
    looksLike: lines.some((l) => MARK.test(l)),
    expected: 'node --test spec reporter output (✔/✖ lines)',
  });
};

/** "✖ failing tests:" entries: "test at file:line", "✖ name (ms)", indented details. */
function readFailingSection(lines: string[], start: number): Map<string, string[][]> {
  const byName = new Map<string, string[][]>();
  let cur: string[] | null = null;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const m = MARK.exec(line);
    if (m && m[1] === '' && m[2] === FAIL) {
      const { name, directive } = parseTitle(m[3]);
      cur = [];
      // A failing todo is listed too, but it is not a failed test.
      if (directive === undefined) byName.set(name, [...(byName.get(name) ?? []), cur]);
      continue;
    }
    if (/^test at /.test(line)) cur = null;
    else if (cur) cur.push(line.slice(Math.min(2, indentOf(line))));
  }
  return byName;
}
