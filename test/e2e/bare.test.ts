// Issue 29: `--agent nanocoder,bare` through the CLI, offline. The scripted `competent` model (a
// stand-in, not a model) fixes textkit-002 through Nanocoder; to the bare agent it answers with
// the hallucinator's changes (examples/scripted-models/models.mjs). The report's harness_delta
// says what Nanocoder adds. One task, two trials: CI time (the bare unit tests cover the rest).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BARE_PROMPT_VERSION } from '../../src/agent/bare-format.js';
import { Store } from '../../src/store/store.js';
import { nanobenchAwait, tempDir } from '../helpers/cli.js';

describe('nanobench run --agent nanocoder,bare', () => {
  it('runs both agents paired and reports the harness delta', async () => {
    const db = join(tempDir('nb-bare-'), 'bare.sqlite');
    const run = await nanobenchAwait([
      ...['run', 'examples', '--agent', 'nanocoder,bare', '--model', 'competent'],
      ...['--task', 'textkit-002', '--runs', '1', '--concurrency', '2'],
      ...['--db', db, '--json'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    const labels = Object.fromEntries(
      out.trials.map((t: { agent: string; task_id: string; label: string }) => [
        `${t.agent} ${t.task_id}`,
        t.label,
      ]),
    );
    expect(labels).toEqual({
      'nanocoder textkit-002': 'pass',
      'bare textkit-002': 'hallucinated_api',
    });

    const store = Store.open(db, { readonly: true });
    const bare = store.trials(out.run_id).find((t) => t.agent === 'bare')!;
    store.close();
    expect(bare.details.agent_meta).toMatchObject({
      barePromptVersion: BARE_PROMPT_VERSION,
      bare: { outcome: 'edited', requests: 1 },
    });

    const report = await nanobenchAwait(['report', out.run_id, '--db', db, '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const r = JSON.parse(report.stdout).report;
    expect(r.models.map((m: { agent: string }) => m.agent)).toEqual(['bare', 'nanocoder']);
    expect(r.harness_delta).toHaveLength(1);
    expect(r.harness_delta[0]).toMatchObject({
      provider: 'scripted',
      model: 'competent',
      mode: 'hinted',
      harness: { agent: 'nanocoder', labels: { pass: 1 } },
      bare: { agent: 'bare', labels: { hallucinated_api: 1 } },
      paired: { tasks: 1, mean_score: { estimate: 1 }, verdict: null },
    });
    const md = await nanobenchAwait(['report', out.run_id, '--db', db]);
    expect(md.stdout).toContain('## Harness delta (harness − bare)');
    expect(md.stdout).toContain(
      '| nanocoder vs bare · scripted/competent | hinted | 1 | 1.00 | 0.00 |',
    );
  });
});
