// schemas/results.schema.json: generated from src/report/results-schema.ts, checked in, and
// validated against what the CLI really prints (`run --json`, `report --format json`). Output
// with provider telemetry and files read is validated in the Nanocoder e2e tests
// (test/e2e/nanocoder-labels.test.ts, test/provider/proxy-kinds-cli.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedSchemas } from '../../src/report/json-schemas.js';
import { nanobench, runJson, tempDir } from '../helpers/cli.js';
import { validateAgainst } from '../helpers/json-schema.js';

describe('schemas/results.schema.json', () => {
  it('the checked-in file matches the code (regenerate: npm run schemas)', () => {
    const onDisk = JSON.parse(readFileSync('schemas/results.schema.json', 'utf8'));
    expect(onDisk).toEqual(generatedSchemas()['results.schema.json']);
  });

  const db = join(tempDir('nb-results-schema-'), 'r.sqlite');
  const run = () =>
    runJson(['run', 'examples', '--agent', 'oracle', '--task', 'textkit-001', '--db', db]);

  it('run --json and report --format json validate; every trial carries its telemetry keys', () => {
    const out = run();
    expect(validateAgainst('results.schema.json', out)).toEqual([]);
    const t = out.trials[0] as unknown as Record<string, unknown>;
    // A control agent calls no model and reports no tool calls: the keys are there, null.
    expect(t).toMatchObject({
      provider_kind: null,
      tokens: null,
      requests: null,
      retries: null,
      latency_ms: null,
      temperature_sent: null,
      non_deterministic: false,
      cost_usd: null,
      tool_calls: null,
      files_read: null,
    });
    expect(out).toMatchObject({ nanobench_version: expect.any(String), scoring_rules_version: 4 });
    const r = nanobench(['report', out.run_id, '--db', db, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(validateAgainst('results.schema.json', report)).toEqual([]);
    expect(report.report).toMatchObject({ audit: null, reading: { threshold: 10 } });
  });

  it('rejects a trial without its telemetry, or with a key it does not know', () => {
    const out = run() as unknown as { trials: Record<string, unknown>[] };
    const { tokens: _t, ...noTokens } = out.trials[0];
    expect(validateAgainst('results.schema.json', { ...out, trials: [noTokens] })).toContainEqual(
      "/trials/0: must have required property 'tokens'",
    );
    expect(
      validateAgainst('results.schema.json', { ...out, trials: [{ ...out.trials[0], extra: 1 }] }),
    ).toContainEqual('/trials/0: must NOT have additional properties');
  });
});
