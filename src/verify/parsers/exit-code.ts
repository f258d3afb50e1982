// No per-test results: the suite is one test "(suite)" that passes only on exit code 0.
import type { Parser } from '../types.js';
import { suiteResult } from './common.js';

export const parse: Parser = (raw) => {
  const code = raw.exitCode === null ? 'no exit code (killed)' : `exit code ${raw.exitCode}`;
  return suiteResult(
    raw,
    raw.exitCode === 0,
    `the suite's format is exit-code: it counts as one test "(suite)", decided by its ${code}`,
  );
};
