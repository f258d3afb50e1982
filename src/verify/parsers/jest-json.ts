// jest --json: the same report shape as vitest's JSON reporter (which copied it).
import type { Parser } from '../types.js';
import { parseJestLike } from './vitest-json.js';

export const parse: Parser = (raw) =>
  parseJestLike(raw, 'a jest JSON report (--json --outputFile=...)');
