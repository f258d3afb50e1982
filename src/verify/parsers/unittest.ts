// python -m unittest -v. Result lines: "test_x (pkg.mod.Class.test_x) ... ok" (3.11+) or
// "test_x (pkg.mod.Class) ... ok" (older); ids are "pkg.mod.Class.test_x". Failure text comes
// from the FAIL:/ERROR: blocks after the "=====" separators. Subtests merge into their test.
// A module that fails to import is unittest's "unittest.loader._FailedTest": the failed test
// "<module>" and a file error for the module's tests ("<module>.Class.test").
import type { FileError, Parser, TestOutcome, TestResult } from '../types.js';
import { finish, splitLines, trimBlankLines } from './common.js';

// "name (dotted.class)" with optional subtest params "(i=2)"; older Pythons may print the next
// test's header on the same line after a subtest failure, so headers are found with /g.
const HEADER = /([^\s()]+) \(([^\s()]*\.[^\s()]*)\)((?: \(.*?\))?) \.\.\. ?/g;
const BARE_HEADER = /^\s*([^\s()]+) \(([^\s()]*\.[^\s()]*)\)(.*)$/;
const OUTCOME = /^(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$/;
const SEPARATOR = /^={40,}$/;
const DASHES = /^-{40,}$/;
const BLOCK = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (.*)$/;

/** A module that failed to import: "tests.test_x (unittest.loader._FailedTest...)". */
const isLoadFailure = (cls: string) => cls.startsWith('unittest.loader.');

function unittestId(method: string, cls: string): string {
  if (isLoadFailure(cls)) return method;
  return cls.endsWith(`.${method}`) ? cls : `${cls}.${method}`;
}

function toOutcome(text: string): TestOutcome | undefined {
  if (!OUTCOME.test(text)) return undefined;
  if (text === 'ok') return 'passed';
  if (text === 'FAIL' || text === 'ERROR' || text === 'unexpected success') return 'failed';
  return 'skipped';
}

interface Seen {
  outcomes: TestOutcome[];
  messages: string[];
  loadFailure?: boolean;
}

export const parse: Parser = (raw) => {
  // unittest writes to stderr; "2>&1" runs have it on stdout.
  const lines = splitLines(`${raw.stderr}\n${raw.stdout}`);
  const records = new Map<string, Seen>();
  const get = (id: string): Seen => {
    let r = records.get(id);
    if (!r) {
      r = { outcomes: [], messages: [] };
      records.set(id, r);
    }
    return r;
  };
  let pending: string | null = null; // a header still waiting for its outcome (docstring, output)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (SEPARATOR.test(line) && BLOCK.test(lines[i + 1] ?? '')) {
      i = readBlock(lines, i + 1, get) - 1;
      pending = null;
      continue;
    }
    const found = [...line.matchAll(HEADER)];
    if (found.length > 0) {
      found.forEach((h, k) => {
        const id = unittestId(h[1], h[2]);
        get(id).loadFailure ||= isLoadFailure(h[2]);
        const end = k + 1 < found.length ? found[k + 1].index : line.length;
        const outcome = toOutcome(line.slice(h.index + h[0].length, end).trim());
        if (outcome) get(id).outcomes.push(outcome);
        pending = outcome ? null : id;
      });
      continue;
    }
    const bare = BARE_HEADER.exec(line);
    if (bare && !bare[3].includes(' ... ')) {
      pending = unittestId(bare[1], bare[2]);
      get(pending);
      continue;
    }
    if (pending !== null) {
      // "A docstring line ... ok", or the outcome alone after the test's own output.
      const m = / \.\.\. (.*)$/.exec(line);
      const outcome = toOutcome((m ? m[1] : line).trim());
      if (outcome) {
        get(pending).outcomes.push(outcome);
        pending = null;
      }
    }
  }
  const tests = [...records].map(([id, r]): TestResult => {
    let outcome: TestOutcome = 'failed';
    if (r.outcomes.includes('failed')) outcome = 'failed';
    else if (r.outcomes.includes('passed')) outcome = 'passed';
    else if (r.outcomes.includes('skipped')) outcome = 'skipped';
    const result: TestResult = { id, outcome };
    if (outcome !== 'failed') return result;
    result.message =
      r.messages.length > 0
        ? r.messages.join('\n\n')
        : r.outcomes.length === 0
          ? 'no result was printed for this test (the run may have stopped inside it)'
          : 'unexpected success';
    return result;
  });
  const fileErrors: FileError[] = tests
    .filter((t) => records.get(t.id)?.loadFailure && t.outcome === 'failed')
    .map((t) => ({ file: t.id, message: t.message ?? '', idPrefixes: [`${t.id}.`] }));
  return finish(raw, tests, {
    fileErrors,
    looksLike: lines.some((l) => /^Ran \d+ tests? in /.test(l) || SEPARATOR.test(l)),
    expected: 'python -m unittest -v output ("test (module.Class.test) ... ok" lines)',
  });
};

/** Reads one "FAIL: header" block up to the next separator; returns the index after it. */
function readBlock(lines: string[], start: number, get: (id: string) => Seen): number {
  const m = BLOCK.exec(lines[start])!;
  const header = BARE_HEADER.exec(m[2]);
  let i = start + 1;
  const body: string[] = [lines[start]];
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (SEPARATOR.test(line)) break;
    if (DASHES.test(line) && /^Ran \d+ tests?/.test(lines[i + 1] ?? '')) break;
    if (!DASHES.test(line)) body.push(line);
  }
  const id = header ? unittestId(header[1], header[2]) : m[2];
  const record = get(id);
  if (header && isLoadFailure(header[2])) record.loadFailure = true;
  record.outcomes.push('failed');
  record.messages.push(trimBlankLines(body.join('\n')));
  return i;
}
