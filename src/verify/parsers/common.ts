// Helpers shared by the per-format parsers: path normalisation, duplicate ids, and the
// zero-test fallback (a run that reported no tests must never count as a pass).
import { pathToFileURL } from 'node:url';
import type { FileError, ParseResult, RawSuiteOutput, TestResult } from '../types.js';

/** Most of a runner's stderr/stdout worth keeping on a fallback "(suite)" test. */
const TAIL_CHARS = 4000;

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Drops leading and trailing blank lines, keeping indentation inside. */
export function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
}

// Colour codes (FORCE_COLOR, jest's coloured failureMessages) are noise in messages.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Removes the absolute workspace path (plain, as a file:// URL, with or without a trailing
 * slash) so ids and messages are the same wherever the workspace was checked out.
 */
export function stripWorkspace(text: string, workspace: string): string {
  const ws = workspace.replace(/\/+$/, '');
  if (ws === '') return text;
  const url = pathToFileURL(ws).href;
  const variants = [...new Set([url, `file://${ws}`, ws])].map(escapeRegExp);
  // "<ws>/x" -> "x"; a bare "<ws>" (not followed by more path) -> "."
  const re = new RegExp(`(?:${variants.join('|')})(/|(?![\\w.@%+~-]))`, 'g');
  return text.replace(re, (_m, slash: string) => (slash === '/' ? '' : '.'));
}

/** A test named by a JavaScript/TypeScript file path: how node --test names a file that failed to load. */
export function looksLikeFile(name: string): boolean {
  return /^[^\s>]+\.[cm]?[jt]sx?$/.test(name);
}

/** Gives the 2nd, 3rd... occurrence of an id a stable " #2", " #3" suffix. */
export function dedupe(tests: TestResult[]): TestResult[] {
  const seen = new Map<string, number>();
  const taken = new Set(tests.map((t) => t.id));
  return tests.map((t) => {
    const n = (seen.get(t.id) ?? 0) + 1;
    seen.set(t.id, n);
    if (n === 1) return t;
    let k = n;
    while (taken.has(`${t.id} #${k}`)) k++;
    const id = `${t.id} #${k}`;
    taken.add(id);
    return { ...t, id };
  });
}

export function tail(text: string): string | undefined {
  const t = trimBlankLines(text);
  if (t === '') return undefined;
  return t.length > TAIL_CHARS ? `...${t.slice(-TAIL_CHARS)}` : t;
}

/** The suite as one test "(suite)"; the message is the end of the runner's output. */
export function suiteResult(raw: RawSuiteOutput, passed: boolean, fallback: string): ParseResult {
  const test: TestResult = { id: '(suite)', outcome: passed ? 'passed' : 'failed' };
  const message = passed ? undefined : (tail(raw.stderr) ?? tail(raw.stdout));
  if (message !== undefined) test.message = stripWorkspace(stripAnsi(message), raw.workspace);
  return { status: 'reported', tests: [test], fileErrors: [], fallback };
}

export interface FinishOptions {
  /** Whether the output looked like the format at all: a report was found (even an empty one). */
  looksLike: boolean;
  /** What the parser expected, e.g. "node --test TAP output". */
  expected: string;
  /** TAP family: with zero tests, stderr becomes a failed "(crashed)" test. */
  crashTest?: boolean;
  /** Files that failed to load (ids and messages not yet normalised). */
  fileErrors?: FileError[];
}

/**
 * Normalises ids, messages and file errors, suffixes duplicates, and applies the zero-test
 * fallback. A run counts as reported when its output looked like the format or held tests.
 */
export function finish(raw: RawSuiteOutput, tests: TestResult[], opts: FinishOptions): ParseResult {
  const status = opts.looksLike || tests.length > 0 ? 'reported' : 'no_report';
  const clean = (text: string) => stripWorkspace(stripAnsi(text), raw.workspace);
  const fileErrors = (opts.fileErrors ?? []).map((e) => ({
    file: stripWorkspace(e.file, raw.workspace),
    message: clean(e.message),
    idPrefixes: e.idPrefixes.map((p) => stripWorkspace(p, raw.workspace)),
  }));
  if (tests.length > 0) {
    const normalised = tests.map((t) => {
      const out: TestResult = { id: stripWorkspace(t.id, raw.workspace), outcome: t.outcome };
      if (t.message !== undefined && t.message !== '') out.message = clean(t.message);
      return out;
    });
    return { status, tests: dedupe(normalised), fileErrors };
  }
  const code = raw.exitCode === null ? 'no exit code (killed)' : `exit code ${raw.exitCode}`;
  const crash = tail(raw.stderr);
  if (opts.crashTest && crash !== undefined) {
    return {
      status,
      tests: [
        { id: '(crashed)', outcome: 'failed', message: stripWorkspace(crash, raw.workspace) },
      ],
      fileErrors,
      fallback: `no tests were reported (expected ${opts.expected}; ${code}); the runner's stderr is reported as the failed test "(crashed)"`,
    };
  }
  const noTests = (text: string): ParseResult => ({
    ...suiteResult(raw, false, text),
    status,
    fileErrors,
  });
  if (raw.exitCode === 0) {
    return noTests(
      opts.looksLike
        ? 'no tests were reported'
        : `no tests were reported: expected ${opts.expected} and found none, and exit code 0 alone is not a pass`,
    );
  }
  return noTests(
    opts.looksLike
      ? `no tests were reported; the suite failed with ${code}`
      : `expected ${opts.expected} but found none, so the ${code} was used: the suite failed`,
  );
}
