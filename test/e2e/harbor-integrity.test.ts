// Issue #17: a Harbor verifier cannot be talked into a reward by what the agent left behind. The
// task is a copy of examples/harbor/median whose verifier imports json after putting /app on its
// path (as many verifiers import the agent's code); the agent (test/fixtures/harbor/plant.sh)
// plants a json.py that writes a full reward and exits, site hooks, a reward file of its own, and
// a straggler. A naive runner (agent and verifier in one container, as Harbor does) pays it; under
// NanoBench it earns nothing and is flagged.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { EXAMPLES, ROOT, runJson, varTempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';

const root = varTempDir('nb-hint-');
const task = join(root, 'median-json');
const PLANT = join(ROOT, 'test/fixtures/harbor/plant.sh');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(noPodman)('a Harbor verifier and what the agent planted', () => {
  beforeAll(() => {
    cpSync(join(EXAMPLES, 'harbor', 'median'), task, { recursive: true });
    const check = join(task, 'tests', 'check_median.py');
    // A verifier that reads a JSON file of expectations after putting /app on its path.
    writeFileSync(
      check,
      readFileSync(check, 'utf8').replace(
        'from stats import median  # noqa: E402',
        'from stats import median  # noqa: E402\nimport json  # noqa: E402,F401',
      ),
    );
  });

  it('a naive runner (agent and verifier in one container) pays the planted json.py', () => {
    const image = testImage();
    const ws = join(root, 'naive');
    cpSync(join(task, 'environment', 'app'), ws, { recursive: true });
    const script = `sh /plant.sh >/dev/null; bash /tests/test.sh >/dev/null 2>&1; cat /logs/verifier/reward.txt`;
    const out = execFileSync(
      'podman',
      [
        'run',
        '--rm',
        '--runtime',
        'runc',
        '--ulimit',
        'nofile=1024:1024',
        '--ulimit',
        'nproc=1024:1024',
      ]
        .concat([
          '-v',
          `${ws}:/app`,
          '-v',
          `${join(task, 'tests')}:/tests:ro`,
          '-v',
          `${PLANT}:/plant.sh:ro`,
        ])
        .concat(['-w', '/app', image, 'sh', '-c', script]),
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('1');
  });

  it('under NanoBench: no reward, and the planted modules are named', () => {
    const db = join(root, 'r.sqlite');
    const out = runJson(
      ['run', task, '--agent', `command:${PLANT}`, '--sandbox', 'podman'].concat([
        '--build-arg',
        `BASE_IMAGE=${testImage()}`,
        '--db',
        db,
      ]),
    );
    const store = Store.open(db);
    const [t] = store.trials(out.run_id);
    store.close();
    expect(readFileSync(join(t.artifacts_dir!, 'agent.stdout'), 'utf8')).toContain(
      'RESULT planted',
    );
    expect(t).toMatchObject({ status: 'scored', score: 0, label: 'no_reward' });
    expect(t.flags).toContain('touched_test_infra');
    expect((t.details.integrity as Record<string, string[]>).touched_test_infra).toEqual(
      expect.arrayContaining(['json.py', 'sitecustomize.py', 'nb-hook.pth']),
    );
    // The straggler died with the agent's container: its late file never appeared.
    expect(t.files_changed).not.toContain('late-reward');
    expect(readFileSync(join(t.artifacts_dir!, 'tests-harbor.stdout'), 'utf8')).toMatch(
      /case\(s\) failed/,
    );
  });
});
