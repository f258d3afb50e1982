// node --test --test-reporter=tap: TAP 13 with "# Subtest:" headers and indented subtests.
// The generic TAP reader already handles node's specifics: describe() blocks ("type: 'suite'")
// are parents so only leaves are reported, and a test file that fails to load (a failed point
// named by its path) gets the crash output node prints as comments just before it. Node's ids
// do not name their file, so such a file's error belongs to every test that did not report.
import type { Parser } from '../types.js';
import { parseTap } from './tap.js';

export const parse: Parser = (raw) => parseTap(raw, 'node --test TAP output', false);
