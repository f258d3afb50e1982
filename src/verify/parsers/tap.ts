// TAP 12/13/14 (mocha --reporter tap, node-tap, node --test): test points, indented subtests,
// YAML or free-text diagnostics, "# SKIP"/"# TODO" directives. Only leaf tests are reported,
// ids are the parents' descriptions and the leaf's joined by " > ".
import type { ParseResult, Parser, RawSuiteOutput, TestOutcome, TestResult } from '../types.js';
import { finish, indentOf, splitLines, trimBlankLines } from './common.js';

// "ok 3 - name", "not ok 3 name" (mocha), "ok - name", "ok"; the name keeps its own spaces.
const POINT = /^(ok|not ok)\b(?: +\d+)?(?: +-)?(?: ?(.*))?$/;
const PLAN = /^1\.\.\d+/;

interface Point {
  indent: number;
  name: string;
  outcome: TestOutcome;
  message?: string;
  children: Point[];
  /** node --test marks describe() blocks "type: 'suite'"; an empty one is not a test. */
  isSuite: boolean;
  /** "# Subtest:" names enclosing this point, used only if its parent point never came. */
  headers: string[];
}

/** TAP14 escapes: "\\" and "\#" (node --test writes only these in practice). */
export function tapUnescape(s: string): string {
  return s.replace(/\\([\\#])/g, '$1');
}

/** Splits "name # SKIP reason" at the first unescaped "#" preceded by whitespace. */
function splitDirective(text: string): { name: string; directive?: string } {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      return { name: text.slice(0, Math.max(0, i - 1)), directive: text.slice(i + 1).trim() };
    }
  }
  return { name: text };
}

function isTapSyntax(body: string): boolean {
  return (
    POINT.test(body) ||
    PLAN.test(body) ||
    body.startsWith('#') ||
    /^(TAP version|Bail out!)/i.test(body)
  );
}

export function looksLikeTap(text: string): boolean {
  return splitLines(text).some((l) => {
    const b = l.trimStart();
    return /^TAP version \d+/i.test(b) || PLAN.test(b) || POINT.test(b);
  });
}

/** Reads the diagnostics after a test point: a YAML block or (TAP 12, mocha) indented text. */
function readDiagnostics(
  lines: string[],
  start: number,
  indent: number,
): { text: string[]; next: number } {
  const text: string[] = [];
  let j = start;
  const first = lines[j];
  if (first !== undefined && first.trim() === '---' && indentOf(first) > indent) {
    const yi = indentOf(first);
    for (j++; j < lines.length; j++) {
      const l = lines[j];
      if (l.trim() === '...' && indentOf(l) === yi) break;
      text.push(l);
    }
    // Dedent by the block's smallest indent (mocha indents its YAML 2 past the "---").
    const base = Math.min(...text.filter((l) => l.trim() !== '').map(indentOf));
    return { text: text.map((l) => l.slice(Math.min(base, indentOf(l)))), next: j + 1 };
  }
  let base = -1;
  for (; j < lines.length; j++) {
    const l = lines[j];
    const ind = indentOf(l);
    if (l.trim() !== '' && (ind <= indent || isTapSyntax(l.trimStart()))) break;
    if (base < 0 && l.trim() !== '') base = ind;
    text.push(l.slice(Math.min(Math.max(base, 0), ind)));
  }
  return { text, next: j };
}

/** Parses TAP text into leaf tests (ids not yet normalised). */
export function parseTapText(text: string): TestResult[] {
  const lines = splitLines(text);
  const open: Point[] = []; // finished points not yet claimed by a parent, in order
  const headers: { indent: number; name: string }[] = [];
  const comments = new Map<number, string[]>(); // comment lines since the last point, by indent
  for (let i = 0; i < lines.length; i++) {
    const indent = indentOf(lines[i]);
    const body = lines[i].slice(indent);
    if (body.startsWith('# Subtest:')) {
      while (headers.length > 0 && headers[headers.length - 1].indent >= indent) headers.pop();
      headers.push({
        indent,
        name: tapUnescape(body.slice('# Subtest:'.length).replace(/^ /, '')),
      });
      continue;
    }
    const m = POINT.exec(body);
    if (!m) {
      if (body.startsWith('#')) {
        const list = comments.get(indent) ?? [];
        list.push(tapUnescape(body.replace(/^# ?/, '')));
        comments.set(indent, list);
      }
      continue;
    }
    const diag = readDiagnostics(lines, i + 1, indent);
    i = diag.next - 1;
    const { name, directive } = splitDirective(m[2] ?? '');
    const skipped = directive !== undefined && /^(skip|todo)\b/i.test(directive);
    const outcome: TestOutcome = skipped ? 'skipped' : m[1] === 'ok' ? 'passed' : 'failed';
    // Children are printed before their parent point, indented deeper.
    let k = open.length;
    while (k > 0 && open[k - 1].indent > indent) k--;
    const children = open.splice(k);
    while (headers.length > 0 && headers[headers.length - 1].indent > indent) headers.pop();
    // Comments just before a failed point (node prints a file's crash output so) explain it.
    const before = comments.get(indent) ?? [];
    for (const key of [...comments.keys()]) if (key >= indent) comments.delete(key);
    const point: Point = {
      indent,
      name: tapUnescape(name),
      outcome,
      children,
      isSuite: diag.text.some((l) => /^type: '?suite'?\s*$/.test(l)),
      headers: headers.filter((h) => h.indent < indent).map((h) => h.name),
    };
    if (outcome === 'failed') {
      const message = trimBlankLines([...before, ...diag.text].join('\n'));
      if (message !== '') point.message = message;
    }
    open.push(point);
  }
  return open.flatMap((p) => leaves(p, p.headers));
}

function leaves(p: Point, prefix: string[]): TestResult[] {
  const path = [...prefix, p.name];
  if (p.children.length > 0) {
    const out = p.children.flatMap((c) => leaves(c, path));
    // A parent that failed on its own (hook, exit code) while every leaf passed keeps its failure.
    if (p.outcome === 'failed' && !out.some((t) => t.outcome === 'failed'))
      out.push(result(path, p));
    return out;
  }
  if (p.isSuite && p.outcome !== 'failed') return [];
  return [result(path, p)];
}

function result(path: string[], p: Point): TestResult {
  const r: TestResult = { id: path.join(' > '), outcome: p.outcome };
  if (p.message !== undefined) r.message = p.message;
  return r;
}

export function parseTap(raw: RawSuiteOutput, expected: string): ParseResult {
  return finish(raw, parseTapText(raw.stdout), {
    looksLike: looksLikeTap(raw.stdout),
    expected,
    crashTest: true,
  });
}

export const parse: Parser = (raw) => parseTap(raw, 'TAP output (test points "ok N - name")');
