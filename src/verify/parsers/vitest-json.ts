// vitest --reporter=json (and jest --json, the same shape): testResults[] per file, each with
// assertionResults[]. Ids are "<file relative to the workspace> > <ancestors...> > <title>".
// A file that failed to load has no assertionResults, only a message: it becomes the failed
// test "<file> > (file failed to load)" and a file error for its tests that never reported.
import type {
  FileError,
  ParseResult,
  Parser,
  RawSuiteOutput,
  TestOutcome,
  TestResult,
} from '../types.js';
import { finish } from './common.js';

interface Assertion {
  ancestorTitles?: unknown;
  title?: unknown;
  status?: unknown;
  failureMessages?: unknown;
}

interface FileResult {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  assertionResults?: unknown;
}

/** The report: the result file, else a JSON object printed on stdout (no --outputFile). */
function readReport(raw: RawSuiteOutput): { testResults: FileResult[] } | undefined {
  const start = raw.stdout.search(/^\{/m);
  const candidates = [raw.resultFile, start >= 0 ? raw.stdout.slice(start) : undefined];
  for (const text of candidates) {
    if (text === undefined || text.trim() === '') continue;
    try {
      const data: unknown = JSON.parse(text);
      if (
        data &&
        typeof data === 'object' &&
        Array.isArray((data as { testResults?: unknown }).testResults)
      )
        return data as { testResults: FileResult[] };
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function toOutcome(status: unknown): TestOutcome {
  if (status === 'passed' || status === 'focused') return 'passed';
  if (status === 'failed') return 'failed';
  return 'skipped'; // skipped, pending, todo, disabled
}

export function parseJestLike(raw: RawSuiteOutput, expected: string): ParseResult {
  const report = readReport(raw);
  const tests: TestResult[] = [];
  const fileErrors: FileError[] = [];
  for (const file of report?.testResults ?? []) {
    // The workspace prefix is stripped from ids by finish(), which makes the path relative.
    const path = typeof file.name === 'string' ? file.name : '(unknown file)';
    const assertions = Array.isArray(file.assertionResults)
      ? (file.assertionResults as Assertion[])
      : [];
    if (assertions.length === 0 && file.status === 'failed') {
      const message = typeof file.message === 'string' ? file.message : '';
      tests.push({ id: `${path} > (file failed to load)`, outcome: 'failed', message });
      fileErrors.push({ file: path, message, idPrefixes: [`${path} > `] });
      continue;
    }
    for (const a of assertions) {
      const titles = [...strings(a.ancestorTitles), String(a.title ?? '')];
      const test: TestResult = { id: [path, ...titles].join(' > '), outcome: toOutcome(a.status) };
      const messages = strings(a.failureMessages);
      if (test.outcome === 'failed' && messages.length > 0) test.message = messages.join('\n');
      tests.push(test);
    }
  }
  return finish(raw, tests, { looksLike: report !== undefined, expected, fileErrors });
}

export const parse: Parser = (raw) =>
  parseJestLike(raw, 'a vitest JSON report (--reporter=json --outputFile=...)');
