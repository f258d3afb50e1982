// The scripted models of the demo and the e2e tests (examples/scripted-models/): valid scripts,
// generated files in sync with their plans, and the six models the docs promise.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScripts, parseScript } from '../../src/provider/script-schema.js';
import { resolveBehaviour } from '../../src/provider/scripted-server.js';
import { loadDataset } from '../../src/task/load.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const DIR = join(EXAMPLES, 'scripted-models');
const MODELS = ['competent', 'wrong-files', 'wanderer', 'hallucinator', 'context-hog', 'flaky'];
const tasks = loadDataset(EXAMPLES).map((t) => t.task);
const jsonFiles = readdirSync(DIR).filter((n) => n.endsWith('.json'));
const scratch = mkdtempSync(join(tmpdir(), 'nanobench-scripted-models-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function check(buildScript: string) {
  return spawnSync(process.execPath, [buildScript, '--check'], { encoding: 'utf8' });
}

describe('examples/scripted-models', () => {
  it('every JSON file is a valid script (parseScript), and loadScripts reads the directory', async () => {
    expect(jsonFiles.length).toBeGreaterThanOrEqual(MODELS.length);
    for (const name of jsonFiles) {
      const data = JSON.parse(readFileSync(join(DIR, name), 'utf8'));
      const script = parseScript(data, name);
      expect(`${script.model}.json`).toBe(name);
    }
    const scripts = await loadScripts(DIR);
    expect(scripts.map((s) => s.model).sort()).toEqual(jsonFiles.map((n) => n.slice(0, -5)).sort());
  });

  it('has the six models, each described as a scripted stand-in and scripted for every example task', async () => {
    const scripts = new Map((await loadScripts(DIR)).map((s) => [s.model, s]));
    for (const model of MODELS) {
      const script = scripts.get(model);
      expect(script, model).toBeDefined();
      expect(script!.description.toLowerCase()).toContain('scripted');
      expect(script!.description.toLowerCase()).toContain('not a model');
      for (const t of tasks)
        expect(Object.keys(script!.tasks), `${model}: ${t.task_id}`).toContain(t.task_id);
    }
  });

  it('flaky alternates on tier 3-4 tasks (odd attempts are the competent run) and is steady on tier 1-2', async () => {
    const scripts = new Map((await loadScripts(DIR)).map((s) => [s.model, s]));
    const flaky = scripts.get('flaky')!;
    const competent = scripts.get('competent')!;
    for (const t of tasks) {
      const b = flaky.tasks[t.task_id];
      const right = resolveBehaviour(competent.tasks[t.task_id], 1);
      if (t.complexity_tier >= 3) {
        expect('variants' in b && b.variants.length, t.task_id).toBe(2);
        for (const attempt of [1, 3, 5]) expect(resolveBehaviour(b, attempt)).toEqual(right);
        for (const attempt of [2, 4]) expect(resolveBehaviour(b, attempt)).not.toEqual(right);
      } else {
        expect('steps' in b, t.task_id).toBe(true);
        expect(resolveBehaviour(b, 1)).toEqual(right);
      }
    }
  });

  it('the checked-in JSON matches its plans (build.mjs --check exits 0)', () => {
    const r = check(join(DIR, 'build.mjs'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('build.mjs --check exits non-zero on a stale, missing or unplanned JSON file', () => {
    // A copy of what the build reads, so the checked-in files are never touched.
    const copy = join(scratch, 'examples');
    for (const d of ['tasks', 'fixtures', 'scripted-models'])
      cpSync(join(EXAMPLES, d), join(copy, d), { recursive: true });
    const build = join(copy, 'scripted-models', 'build.mjs');
    const competent = join(copy, 'scripted-models', 'competent.json');
    const original = readFileSync(competent, 'utf8');
    expect(check(build).status).toBe(0);

    writeFileSync(competent, original.replace('"final": "', '"final": "(edited) '));
    const stale = check(build);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('competent.json is stale');

    rmSync(competent);
    expect(check(build).stderr).toContain('competent.json is missing');
    writeFileSync(competent, original);

    writeFileSync(join(copy, 'scripted-models', 'extra.json'), '{}');
    expect(check(build).stderr).toContain('extra.json is not built from models.mjs');
  });
});
