// Files that mix project metadata with test configuration keep the agent's project changes and
// get their test parts back from the baseline: package.json fields, and sections of
// pyproject.toml / setup.cfg. The rest of the file may be part of a legitimate fix (a new
// export, a new entry point), so restoring it whole would fail correct solutions.

/** package.json fields that decide how tests run (npm scripts run `npm test`; the rest are runners). */
export const PACKAGE_TEST_FIELDS = [
  'scripts',
  'config',
  'jest',
  'mocha',
  'ava',
  'tap',
  'c8',
  'nyc',
  'vitest',
  'jasmine',
  'babel',
  'xo',
  'pre-commit',
] as const;

/**
 * The agent's package.json with the test fields of the baseline; undefined when nothing needs
 * restoring. An unparseable file comes back as the baseline.
 */
export function mergePackageJson(agent: string, base: string): string | undefined {
  let a: Record<string, unknown>;
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(base);
  } catch {
    return undefined; // the baseline itself is not JSON: nothing to compare with
  }
  try {
    a = JSON.parse(agent);
    if (!a || typeof a !== 'object' || Array.isArray(a)) return base;
  } catch {
    return base;
  }
  let changed = false;
  for (const f of PACKAGE_TEST_FIELDS) {
    if (JSON.stringify(a[f]) === JSON.stringify(b[f])) continue;
    changed = true;
    if (f in b) a[f] = b[f];
    else delete a[f];
  }
  if (!changed) return undefined;
  const indent = /^\{\n([ \t]+)"/.exec(agent)?.[1] ?? '  ';
  return `${JSON.stringify(a, null, indent)}\n`;
}

interface Section {
  header: string;
  body: string;
}

/** Split INI/TOML text at top-level `[header]` lines (TOML `[[array]]` tables included). */
function sections(text: string): { preamble: string; list: Section[] } {
  const list: Section[] = [];
  let preamble = '';
  let cur: Section | undefined;
  for (const line of text.split(/(?<=\n)/)) {
    const m = /^\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line.trimEnd());
    if (m) {
      cur = { header: m[1], body: line };
      list.push(cur);
    } else if (cur) cur.body += line;
    else preamble += line;
  }
  return { preamble, list };
}

/** Section names that configure test runners, coverage or tox, in INI or TOML spelling. */
export const TEST_SECTION =
  /^(tool[.:](pytest|coverage|tox|nose2?|hatch\.envs\.(test|tests|default))|pytest|coverage|tox|testenv|nosetests|flake8:local-plugins)\b/i;

/** Keys outside test sections that still reach the runner (TOML dotted keys, e.g. `tool.pytest.x = 1`). */
const DOTTED_TEST_KEY = /^\s*"?(tool"?\.)?"?(pytest|coverage|tox)"?\./im;

/**
 * The agent's config file with every test section taken from the baseline (agent-added test
 * sections removed); undefined when the test sections are already the baseline's. When test
 * settings hide outside sections, the whole baseline file comes back.
 */
export function mergeTestSections(agent: string, base: string): string | undefined {
  const a = sections(agent);
  const b = sections(base);
  const testOf = (s: { list: Section[] }) =>
    s.list.filter((x) => TEST_SECTION.test(x.header)).map((x) => x.body);
  const hidden = (s: { preamble: string; list: Section[] }) =>
    [s.preamble, ...s.list.filter((x) => !TEST_SECTION.test(x.header)).map((x) => x.body)].some(
      (t) => DOTTED_TEST_KEY.test(t),
    );
  if (hidden(a) || hidden(b)) return agent === base ? undefined : base;
  if (testOf(a).join('') === testOf(b).join('')) return undefined;
  const kept = a.list.filter((x) => !TEST_SECTION.test(x.header)).map((x) => x.body);
  const sep = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
  return sep(a.preamble) + kept.map(sep).join('') + testOf(b).map(sep).join('');
}
