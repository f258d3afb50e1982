// TAP 12/13/14 from mocha --reporter tap, node-tap (the `tap` CLI), tape and node --test: test
// points, indented subtests, YAML or free-text diagnostics, "# SKIP"/"# TODO" directives.
//
// The unit is a test, never an assertion (docs/ARCHITECTURE.md, "Decisions"):
// - a point printed under its own "# Subtest:" header, or with indented points of its own, is a
//   test (node-tap's t.test and each test file, node --test's test/it/describe);
// - a point without one, inside a test, is an assertion of that test (node-tap's t.equal): it
//   rolls up into the test, which fails if any of its assertions failed, with their diagnostics
//   as its message;
// - a top-level point without one is a test (mocha prints one point per test), unless a
//   top-level "# name" comment came before it: tape prints each test as such a comment followed
//   by its assertions, so the points under one comment are one test named by it.
// Tests holding tests (describe blocks, files) are reported only when they fail on their own or
// hold failed assertions of their own, or hold passing assertions of their own (node-tap's
// assertions directly in a file). Ids are the enclosing tests' names and the test's, joined
// by " > ".
import type {
  FileError,
  ParseResult,
  Parser,
  RawSuiteOutput,
  TestOutcome,
  TestResult,
} from '../types.js';
import { finish, indentOf, looksLikeFile, splitLines, trimBlankLines } from './common.js';

// "ok 3 - name", "not ok 3 name" (mocha), "ok - name", "ok"; the name keeps its own spaces.
const POINT = /^(ok|not ok)\b(?: +\d+)?(?: +-)?(?: ?(.*))?$/;
const PLAN = /^1\.\.\d+/;

/** tape: the test a top-level comment names. */
interface Group {
  name: string;
}

interface Point {
  indent: number;
  name: string;
  outcome: TestOutcome;
  message?: string;
  children: Point[];
  /** Printed under its own "# Subtest:" header. */
  header: boolean;
  /** node --test marks describe() blocks "type: 'suite'"; an empty one is not a test. */
  isSuite: boolean;
  /** "# Subtest:" names enclosing this point, used only if its parent point never came. */
  headers: string[];
  /** The top-level "# name" comment a top-level point followed (tape). */
  group?: Group;
}

const isTest = (p: Point) => p.header || p.children.length > 0;

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

/** Reads TAP text into points: top-level ones and those whose parent point never came. */
function readPoints(text: string): Point[] {
  const lines = splitLines(text);
  const open: Point[] = []; // finished points not yet claimed by a parent, in order
  const headers: { indent: number; name: string }[] = [];
  const comments = new Map<number, string[]>(); // comment lines since the last point, by indent
  let group: Group | undefined;
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
        const comment = tapUnescape(body.replace(/^# ?/, ''));
        const list = comments.get(indent) ?? [];
        list.push(comment);
        comments.set(indent, list);
        if (indent === 0) group = { name: comment };
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
    const header = headers.length > 0 && headers[headers.length - 1].indent === indent;
    if (header) headers.pop();
    // Comments just before a failed test (node prints a file's crash output so) explain it;
    // before a tape assertion they are its test's name.
    const before = header ? (comments.get(indent) ?? []) : [];
    for (const key of [...comments.keys()]) if (key >= indent) comments.delete(key);
    const point: Point = {
      indent,
      name: tapUnescape(name),
      outcome,
      children,
      header,
      isSuite: diag.text.some((l) => /^type: '?suite'?\s*$/.test(l)),
      headers: headers.map((h) => h.name),
    };
    if (indent === 0 && !header) point.group = group;
    if (outcome === 'failed') {
      const message = trimBlankLines([...before, ...diag.text].join('\n'));
      if (message !== '') point.message = message;
    }
    open.push(point);
  }
  return open;
}

/** The outcome of a set of assertions: failed if any failed; undefined when there are none. */
function rollUp(points: Point[]): TestOutcome | undefined {
  for (const o of ['failed', 'passed', 'skipped'] as const)
    if (points.some((p) => p.outcome === o)) return o;
  return undefined;
}

/** The failed assertions' names and diagnostics (a thrown error's message is its name). */
function failures(points: Point[]): string | undefined {
  const failed = points.filter((p) => p.outcome === 'failed');
  if (failed.length === 0) return undefined;
  return failed.map((p) => trimBlankLines(`${p.name}\n${p.message ?? ''}`)).join('\n\n');
}

function result(path: string[], outcome: TestOutcome, message?: string): TestResult {
  const r: TestResult = { id: path.join(' > '), outcome };
  if (outcome === 'failed' && message !== undefined) r.message = message;
  return r;
}

/** The tests in test point `p`: the tests it holds, and itself when it has something to say. */
function collect(p: Point, prefix: string[]): TestResult[] {
  const path = [...prefix, p.name];
  const inner = p.children.filter(isTest);
  const own = p.children.filter((c) => !isTest(c));
  if (inner.length === 0) {
    if (p.isSuite && p.outcome !== 'failed') return []; // an empty describe
    // A test whose every assertion was skipped ran nothing: skipped, not passed.
    const outcome = p.outcome === 'passed' && rollUp(own) === 'skipped' ? 'skipped' : p.outcome;
    return [result(path, outcome, failures(own) ?? p.message)];
  }
  const out = inner.flatMap((c) => collect(c, path));
  const ownOutcome = rollUp(own);
  if (ownOutcome === 'failed') out.push(result(path, 'failed', failures(own)));
  // Failed on its own (a hook, a throw after its subtests) while everything in it passed.
  else if (p.outcome === 'failed' && !out.some((t) => t.outcome === 'failed'))
    out.push(result(path, 'failed', p.message));
  else if (ownOutcome === 'passed') out.push(result(path, 'passed'));
  return out;
}

/** Parses TAP text into tests (ids not yet normalised) and the test files that failed to load. */
export function parseTapText(
  text: string,
  idsNameFiles: boolean,
): { tests: TestResult[]; fileErrors: FileError[] } {
  const points = readPoints(text);
  const tests: TestResult[] = [];
  for (let i = 0; i < points.length; ) {
    const p = points[i];
    if (isTest(p)) {
      tests.push(...collect(p, p.headers));
      i++;
      continue;
    }
    // Assertions without their test: tape's, under one comment; or, in a run cut off inside a
    // test, those of the test whose "# Subtest:" header came but whose point never did.
    const key = (q: Point) => (q.indent === 0 ? q.group : q.headers.join('\0') || undefined);
    const k = key(p);
    let j = i + 1;
    while (j < points.length && !isTest(points[j]) && k !== undefined && key(points[j]) === k) j++;
    const members = points.slice(i, j);
    i = j;
    if (p.indent === 0 && p.group) {
      tests.push(result([p.group.name], rollUp(members)!, failures(members)));
    } else if (p.indent > 0 && p.headers.length > 0) {
      const ran = failures(members);
      const message = `the run ended inside this test${ran ? `\n\n${ran}` : ''}`;
      tests.push(result(p.headers, 'failed', message));
    } else tests.push(...members.map((m) => result([...m.headers, m.name], m.outcome, m.message)));
  }
  // A test file that failed to load: a top-level test named by its path that failed with no
  // test and no failed assertion in it (node --test; the tap CLI prints the error on stderr).
  const fileErrors = points
    .filter(
      (p) =>
        p.indent === 0 &&
        isTest(p) &&
        p.outcome === 'failed' &&
        looksLikeFile(p.name) &&
        !p.children.some((c) => isTest(c) || c.outcome === 'failed'),
    )
    .map((p) => ({
      file: p.name,
      message: p.message ?? '',
      idPrefixes: idsNameFiles ? [`${p.name} > `] : [],
    }));
  return { tests, fileErrors };
}

/** `idsNameFiles`: the runner's test ids start with their file (the tap CLI), or not (node --test). */
export function parseTap(
  raw: RawSuiteOutput,
  expected: string,
  idsNameFiles: boolean,
): ParseResult {
  const { tests, fileErrors } = parseTapText(raw.stdout, idsNameFiles);
  return finish(raw, tests, {
    looksLike: looksLikeTap(raw.stdout),
    expected,
    crashTest: true,
    fileErrors,
  });
}

export const parse: Parser = (raw) => parseTap(raw, 'TAP output (test points "ok N - name")', true);
