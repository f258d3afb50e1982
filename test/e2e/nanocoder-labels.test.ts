// Issue #3: the REAL Nanocoder binary, driven by the scripted model server, produces the
// taxonomy's labels end to end through the CLI. The scripted models are described in
// examples/scripted-models/README.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runJson, type TrialJson, tempDir } from '../helpers/cli.js';
import { validateAgainst } from '../helpers/json-schema.js';

const db = join(tempDir(), 'r.sqlite');
const find = (ts: TrialJson[], q: Partial<TrialJson>) =>
  ts.filter((t) =>
    Object.entries(q).every(([k, v]) => (t as unknown as Record<string, unknown>)[k] === v),
  );

function nanocoder(args: string[]) {
  return runJson([
    'run',
    'examples',
    '--agent',
    'nanocoder',
    '--provider',
    'scripted',
    '--concurrency',
    '2',
    '--db',
    db,
    ...args,
  ]);
}

describe('Nanocoder through the scripted model server', () => {
  it('competent passes, wrong-files reads too little, wanderer reads widely, context-hog runs out of context', () => {
    const out = nanocoder([
      '--model',
      'competent,wrong-files,wanderer,context-hog',
      '--task',
      'textkit-001',
      '--mode',
      'both',
    ]);
    const ts = out.trials;
    expect(ts).toHaveLength(8);
    for (const t of ts) expect(t.status, `${t.model} ${t.mode}: ${t.error}`).toBe('scored');
    expect(find(ts, { model: 'competent' }).map((t) => t.label)).toEqual(['pass', 'pass']);
    // wrong-files reads the required file and a few others, then edits README.md: navigation's
    // label is insufficient_context_read all the same (scoring rules 3, whitepaper §9.1 rule 2),
    // with what it read as evidence and without the context_explosion flag.
    for (const t of find(ts, { model: 'wrong-files' }))
      expect(t).toMatchObject({
        label: t.mode === 'navigation' ? 'insufficient_context_read' : 'zero_signal',
        score: 0,
        files_read: { count: 3, required: ['src/truncate.js'] },
      });
    const wrongNav = find(ts, { model: 'wrong-files', mode: 'navigation' })[0];
    expect(wrongNav.explanation).toMatch(/^read 3 files, the required one, and changed none/);
    expect(wrongNav.flags).not.toContain('context_explosion');
    // wanderer reads twelve files, none of the required ones, then edits README.md.
    const wanderer = find(ts, { model: 'wanderer', mode: 'navigation' })[0];
    expect(wanderer).toMatchObject({
      label: 'insufficient_context_read',
      score: 0,
      files_read: { count: 12, required: [], required_total: 1 },
    });
    expect(wanderer.explanation).toMatch(/^read 12 files, none of the required ones/);
    expect(wanderer.flags).toContain('context_explosion');
    expect(find(ts, { model: 'wanderer', mode: 'hinted' })[0]).toMatchObject({
      label: 'zero_signal',
      score: 0,
    });
    for (const t of find(ts, { model: 'context-hog' }))
      expect(t).toMatchObject({
        label: 'context_window_exceeded',
        score: 0,
        exit_kind: 'context_exceeded',
        files_changed: [],
      });

    // What the CLI printed validates against the results schema, telemetry included.
    expect(validateAgainst('results.schema.json', out)).toEqual([]);
    // The payload the real binary printed validates against the checked-in schema.
    const pass = find(ts, { model: 'competent', mode: 'hinted' })[0] as TrialJson & {
      artifacts_dir: string;
    };
    const payload = JSON.parse(readFileSync(join(pass.artifacts_dir, 'agent.stdout'), 'utf8'));
    expect(validateAgainst('nanocoder-report.schema.json', payload)).toEqual([]);
    expect(payload.kind).toBe('success');
  });

  it('flaky is right only part of the time: partial fixes and a wrong abstraction layer', () => {
    const out = nanocoder([
      '--model',
      'flaky',
      '--task',
      'textkit-002,invoicing-002',
      '--runs',
      '2',
    ]);
    const ts = out.trials;
    expect(ts).toHaveLength(4);
    expect(find(ts, { task_id: 'textkit-002', attempt: 1 })[0].label).toBe('pass');
    expect(find(ts, { task_id: 'textkit-002', attempt: 2 })[0]).toMatchObject({
      label: 'partial_fix_only',
      score: 0.5,
    });
    expect(find(ts, { task_id: 'invoicing-002', attempt: 1 })[0].label).toBe('pass');
    expect(find(ts, { task_id: 'invoicing-002', attempt: 2 })[0]).toMatchObject({
      label: 'wrong_abstraction_layer',
      confidence_level: '4',
    });
  });

  it('hallucinator calls an API that does not exist and misses the front end of a polyglot change', () => {
    const out = nanocoder([
      '--model',
      'hallucinator',
      '--task',
      'invoicing-002,shopfront-001',
      '--runs',
      '1',
      '--mode',
      'navigation',
    ]);
    const ts = out.trials;
    expect(find(ts, { task_id: 'invoicing-002' })[0]).toMatchObject({
      label: 'hallucinated_api',
      score: 0.1,
    });
    expect(find(ts, { task_id: 'shopfront-001' })[0]).toMatchObject({
      label: 'missing_cross_language_change',
      score: 0.1,
    });
  });

  it('records the exact Nanocoder version with every run and trial', () => {
    const d = new Database(db, { readonly: true });
    const runs = d.prepare('SELECT config FROM runs').all() as { config: string }[];
    const details = d.prepare('SELECT details FROM trials').all() as { details: string }[];
    d.close();
    expect(runs.length).toBe(3);
    for (const r of runs)
      expect(JSON.parse(r.config).agent_info).toMatchObject({
        nanocoder_version: '1.30.0',
        tool_profile: 'full',
      });
    for (const t of details)
      expect(JSON.parse(t.details).agent_meta).toMatchObject({ nanocoderVersion: '1.30.0' });
  });
});
