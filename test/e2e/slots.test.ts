// Issue 27 through the CLI: the real Nanocoder against the scripted server (the stand-in for a
// model), every reply taking delay_ms as a provider thinking would, --concurrency auto. The
// agents of the run overlap; the first request of each trial is a 429 with a retry-after, which
// slows the provider's pool instead of failing the trial; stderr shows both pools.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../src/store/store.js';
import { Store } from '../../src/store/store.js';
import { EXAMPLES, nanobenchAwait, tempDir } from '../helpers/cli.js';

const DELAY = 400;
// textkit-001's fix, as our own scripted steps; the first reply of each trial is rate-limited once.
const steps = [
  {
    tool: 'read_file',
    args: { path: 'src/truncate.js' },
    delay_ms: DELAY,
    fail_first: { fail: 'rate_limit', retry_after_sec: 1 },
  },
  {
    tool: 'string_replace',
    args: {
      path: 'src/truncate.js',
      old_str: '\n  let cut = text.slice(0, maxLength);\n',
      new_str:
        '  if (ellipsis.length >= maxLength) return ellipsis.slice(0, maxLength);\n\n  let cut = text.slice(0, maxLength - ellipsis.length);\n',
    },
    delay_ms: DELAY,
  },
  { final: 'The ellipsis now counts towards maxLength.', delay_ms: DELAY },
];

const dir = tempDir('nb-slots-');
const db = join(dir, 'slots.sqlite');
let result: Awaited<ReturnType<typeof nanobenchAwait>>;
let trials: TrialRecord[] = [];

beforeAll(async () => {
  const scripts = join(dir, 'scripts');
  (await import('node:fs')).mkdirSync(scripts);
  writeFileSync(
    join(scripts, 'thinker.json'),
    JSON.stringify({ model: 'thinker', tasks: { '*': { steps } } }),
  );
  result = await nanobenchAwait([
    'run',
    EXAMPLES,
    ...['--task', 'textkit-001', '--runs', '4', '--mode', 'hinted'],
    ...['--agent', 'nanocoder', '--model', 'thinker', '--scripts', scripts],
    ...['--sandbox', 'none', '--concurrency', 'auto', '--db', db, '--json'],
  ]);
  if (result.code === 0) {
    const store = Store.open(db, { readonly: true });
    trials = store.trials(JSON.parse(result.stdout).run_id);
    store.close();
  }
}, 300_000);

/** A trial's agent run, from its recorded start and the agent phase's time. */
const agentSpan = (t: TrialRecord) => {
  const start = Date.parse(t.details.agent_started_at as string);
  return [start, start + (t.details.phase_ms as { agent: number }).agent];
};

describe('agent slots under --concurrency auto', () => {
  it('passes every trial though each met a 429, and overlaps their agents', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(trials.map((t) => t.label)).toEqual(['pass', 'pass', 'pass', 'pass']);
    const spans = trials.map(agentSpan).sort((a, b) => a[0] - b[0]);
    // Overlap: the last agent started before the first one ended.
    expect(spans[3][0]).toBeLessThan(spans[0][1]);
  });

  it("slows the provider's requests on a 429 and shows the pools on stderr", () => {
    expect(result.stderr).toMatch(
      /provider scripted answered 429 \(retry after 1 s\): 8 of its requests at once for 11 s/,
    );
    expect(result.stderr).toMatch(
      /^agents \d+\/\d+, model requests \d+\/\d+, verifying \d+\/\d+, \d of 4 done(, ETA (<1|\d+) min)?$/m,
    );
  });
});
