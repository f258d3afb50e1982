// Issue #17: `nanobench export --format harbor`, round trip. The examples (and the polyglot task
// with its own environment) are exported as Harbor tasks, checked by `task check`, and run by
// NanoBench's Harbor loader in containers: the oracle and nop score what they score on the PR
// tasks themselves (1.0 and 0.0).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, runJson, varTempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';

const root = varTempDir('nb-export-');
const out = join(root, 'harbor');
const MIRROR = join(EXAMPLES, 'mirror');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const scoresOf = (r: ReturnType<typeof runJson>) =>
  Object.fromEntries(r.trials.map((t) => [t.task_id, t.score]));

describe('export --format harbor', () => {
  beforeAll(() => {
    for (const [dataset, force] of [
      [EXAMPLES, []],
      [join(EXAMPLES, 'containers'), ['--force']],
    ] as const) {
      const r = nanobench([
        'export',
        '--format',
        'harbor',
        dataset,
        out,
        '--mirror',
        MIRROR,
        ...force,
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('writes one Harbor task per PR task, each structurally valid', () => {
    const r = nanobench(['task', 'check', out]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^6 of 6 Harbor task\(s\) structurally valid/m);
    const toml = readFileSync(join(out, 'luahash-001', 'task.toml'), 'utf8');
    expect(toml).toMatch(/nanobench_task_id = "luahash-001"/);
    expect(toml).toMatch(/memory_mb = 1024/);
    const df = readFileSync(join(out, 'luahash-001', 'environment', 'Dockerfile'), 'utf8');
    expect(df).toMatch(/liblua5\.4-dev[\s\S]*WORKDIR \/app\nCOPY repo\/ \/app\/\nRUN make -s/);
    expect(readFileSync(join(out, 'textkit-001', 'instruction.md'), 'utf8')).toMatch(
      /^truncate\(\) returns strings longer than maxLength/,
    );
  });

  it('bad input: another format, or a dataset that is Harbor already, is one line and exit 2', () => {
    const bad = nanobench(['export', '--format', 'json', EXAMPLES, join(root, 'x')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be harbor/);
    const again = nanobench(['export', '--format', 'harbor', out, join(root, 'y')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/holds Harbor tasks already/);
    const busy = nanobench(['export', '--format', 'harbor', EXAMPLES, out, '--mirror', MIRROR]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/is not empty/);
  });

  it.skipIf(noPodman)('round trip: the same oracle and nop scores as the PR tasks', () => {
    const image = testImage();
    const db = join(root, 'r.sqlite');
    const pr = (agent: string, dataset: string, extra: string[]) =>
      scoresOf(
        runJson(
          ['run', dataset, '--agent', agent, '--runs', '1', '--sandbox', 'podman'].concat(
            ['--mirror', MIRROR, '--db', db],
            extra,
          ),
        ),
      );
    const harbor = (agent: string) =>
      scoresOf(
        runJson(
          ['run', out, '--agent', agent, '--sandbox', 'podman', '--db', db].concat([
            '--build-arg',
            `BASE_IMAGE=${image}`,
          ]),
        ),
      );
    for (const agent of ['oracle', 'nop']) {
      const original = {
        ...pr(agent, EXAMPLES, ['--image', image]),
        ...pr(agent, join(EXAMPLES, 'containers'), ['--build-arg', `BASE_IMAGE=${image}`]),
      };
      expect(Object.keys(original)).toHaveLength(6);
      expect(new Set(Object.values(original))).toEqual(new Set([agent === 'oracle' ? 1 : 0]));
      expect(harbor(agent)).toEqual(original);
    }
  });
});
