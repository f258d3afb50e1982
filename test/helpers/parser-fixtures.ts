// Real runner output captured under test/fixtures/parsers (see its README), as parser input.
import { readFileSync } from 'node:fs';
import type { RawSuiteOutput } from '../../src/verify/types.js';

const FIXTURES = new URL('../fixtures/parsers/', import.meta.url);

/** One case directory: stdout, stderr, exit code, the result file when the runner wrote one. */
export function readFixture(dir: string): RawSuiteOutput {
  const read = (f: string) => readFileSync(new URL(`${dir}/${f}`, FIXTURES), 'utf8');
  const meta = JSON.parse(read('meta.json'));
  const raw: RawSuiteOutput = {
    stdout: read('stdout.txt'),
    stderr: read('stderr.txt'),
    exitCode: meta.exitCode,
    workspace: meta.workspace,
  };
  if (meta.resultFile) raw.resultFile = read(meta.resultFile);
  return raw;
}
