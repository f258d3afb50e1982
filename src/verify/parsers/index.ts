// One parser per result format; parseSuite picks it by the suite's declared format.
import type { ResultFormat } from '../../task/schema.js';
import type { ParseResult, Parser, RawSuiteOutput } from '../types.js';
import { parse as exitCode } from './exit-code.js';
import { parse as jestJson } from './jest-json.js';
import { parse as junitXml } from './junit-xml.js';
import { parse as nodeSpec } from './node-spec.js';
import { parse as nodeTap } from './node-tap.js';
import { parse as tap } from './tap.js';
import { parse as unittest } from './unittest.js';
import { parse as vitestJson } from './vitest-json.js';

export const parsers: Record<ResultFormat, Parser> = {
  'node-tap': nodeTap,
  'node-spec': nodeSpec,
  unittest,
  'junit-xml': junitXml,
  'vitest-json': vitestJson,
  'jest-json': jestJson,
  tap,
  'exit-code': exitCode,
};

export function parseSuite(format: ResultFormat, raw: RawSuiteOutput): ParseResult {
  return parsers[format](raw);
}
