// Mixed config files: the test parts come back from the baseline, the rest stays the agent's.
import { describe, expect, it } from 'vitest';
import { mergePackageJson, mergeTestSections } from '../../src/verify/config-merge.js';

describe('mergePackageJson', () => {
  const base = '{\n    "name": "a",\n    "scripts": { "test": "node --test" }\n}\n';
  it('restores test fields, keeps the rest and the indentation', () => {
    const agent =
      '{\n    "name": "a",\n    "main": "x.js",\n    "scripts": { "test": "exit 0" },\n    "nyc": {}\n}';
    expect(JSON.parse(mergePackageJson(agent, base)!)).toEqual({
      name: 'a',
      main: 'x.js',
      scripts: { test: 'node --test' },
    });
    expect(mergePackageJson(agent, base)).toMatch(/^\{\n {4}"name"/);
  });
  it('nothing to do when the test fields are untouched; invalid JSON comes back as the baseline', () => {
    expect(mergePackageJson('{"name":"b","scripts":{"test":"node --test"}}', base)).toBeUndefined();
    expect(mergePackageJson('{ nope', base)).toBe(base);
    expect(mergePackageJson('[1]', base)).toBe(base);
  });
});

describe('mergeTestSections', () => {
  it('setup.cfg: [tool:pytest] and [coverage:run] from the baseline, [metadata] from the agent', () => {
    const base = '[metadata]\nname = a\n\n[tool:pytest]\naddopts = -q\n';
    const agent =
      '[metadata]\nname = b\n\n[tool:pytest]\naddopts = -p cheat\n\n[coverage:run]\nx = 1\n';
    expect(mergeTestSections(agent, base)).toBe(
      '[metadata]\nname = b\n\n[tool:pytest]\naddopts = -q\n',
    );
    expect(mergeTestSections(base.replace('name = a', 'name = c'), base)).toBeUndefined();
  });
  it('pyproject.toml: a dotted tool.pytest key outside a test table restores the whole file', () => {
    const base = '[project]\nname = "a"\n';
    const agent = '[project]\nname = "a"\n\n[tool]\npytest.ini_options.addopts = "-p cheat"\n';
    expect(mergeTestSections(agent, base)).toBe(base);
    expect(mergeTestSections('tool.pytest.ini_options = {}\n', base)).toBe(base);
  });
});
