// `run --matrix FILE`: the file stands for --model, --mode and --runs, is checked against its
// schema, and refuses what it cannot mean (an undeclared provider, a clash with the options).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedSchemas } from '../../src/report/json-schemas.js';
import { readMatrix, resolveWithMatrix } from '../../src/run/matrix.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { validateAgainst } from '../helpers/json-schema.js';

const dir = tempDir('nb-matrix-');
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};
const providers = file('providers.json', {
  providers: [{ name: 'local', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'NB_NO_KEY' }],
});
const resolveWith = (matrix: string, o: Record<string, unknown> = {}) =>
  resolveWithMatrix([EXAMPLES], { agent: 'nanocoder', matrix, providersConfig: providers, ...o });

describe('run --matrix', () => {
  it('gives the pairs, modes and runs of the file, and keeps the file in the config', () => {
    const m = file('m.json', {
      models: [
        { provider: 'local', model: 'qwen2.5-coder:7b' },
        { provider: 'scripted', model: 'competent' },
      ],
      modes: ['navigation', 'hinted'],
      runs: 3,
    });
    const c = resolveWith(m);
    expect(c.models).toEqual([
      { provider: 'local', model: 'qwen2.5-coder:7b' },
      { provider: 'scripted', model: 'competent' },
    ]);
    expect(c.modes).toEqual(['hinted', 'navigation']);
    expect(c.runs).toBe(3);
    expect(c.matrix?.file).toBe(m);
    expect(c.matrix?.models).toHaveLength(2);
  });

  it('leaves mode and runs to the options when the file does not name them', () => {
    const m = file('pairs.json', { models: [{ provider: 'scripted', model: 'flaky' }] });
    const c = resolveWith(m, { mode: 'navigation', runs: '2' });
    expect([c.modes, c.runs]).toEqual([['navigation'], 2]);
  });

  it('refuses an undeclared provider, a clash with --model or --runs, and a non-LLM agent', () => {
    const bad = file('bad.json', { models: [{ provider: 'openrouter', model: 'qwen/qwen3' }] });
    expect(() => resolveWith(bad)).toThrow(
      /provider "openrouter" is neither scripted nor declared in the providers file/,
    );
    const m = file('two.json', { models: [{ provider: 'scripted', model: 'flaky' }], runs: 2 });
    expect(() => resolveWith(m, { model: ['competent'], runs: '1' })).toThrow(
      /names the run's model, runs; drop --model, --runs/,
    );
    expect(() => resolveWith(m, { agent: 'oracle' })).toThrow(/not for oracle/);
  });

  it('names the field a bad file gets wrong, and a missing or broken file, in one line', () => {
    expect(() => readMatrix(file('e.json', { models: [] }))).toThrow(/models: .*at least 1/);
    expect(() =>
      readMatrix(file('x.json', { models: [{ provider: 'scripted', model: 'a', temp: 1 }] })),
    ).toThrow(/models\.0: Unrecognized key\(s\) in object: 'temp'/);
    expect(() =>
      readMatrix(
        file('m.json', { models: [{ provider: 'scripted', model: 'a' }], modes: ['fast'] }),
      ),
    ).toThrow(/modes\.0: Invalid enum value/);
    expect(() => readMatrix(join(dir, 'absent.json'))).toThrow(/absent\.json: no such file/);
    expect(() => readMatrix(file('broken.json', '{ "models": '))).toThrow(/broken\.json: .*JSON/);
  });

  it('the checked-in schema matches the code, and the shipped example follows it', () => {
    const onDisk = JSON.parse(readFileSync('schemas/matrix.schema.json', 'utf8'));
    expect(onDisk).toEqual(generatedSchemas()['matrix.schema.json']);
    const example = JSON.parse(readFileSync('examples/matrices/scripted.json', 'utf8'));
    expect(validateAgainst('matrix.schema.json', example)).toEqual([]);
    expect(validateAgainst('matrix.schema.json', { models: [{ provider: 'x' }] })).not.toEqual([]);
    expect(readMatrix('examples/matrices/scripted.json').models).toHaveLength(3);
  });
});
