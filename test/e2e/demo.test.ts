// Issue #13: `nanobench demo` runs the real Nanocoder against a scripted model, prints the report
// and ends by pointing at the HTML report it wrote and the command that opens it.
// Issue #22: it runs on a fresh machine too (no bubblewrap), saying in one line which sandbox it
// has and why; `nanobench run` still refuses to run an LLM agent unsandboxed unless asked.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { nanobench, ROOT, tempDir } from '../helpers/cli.js';
import { isRoot } from '../helpers/processes.js';
import { noBwrap } from '../sandbox/require-bwrap.js';

/** As on a fresh machine: bwrap, podman, Redis, Chromium and the rest out of PATH's reach. */
const FRESH = ['bash', join(ROOT, 'scripts/fresh-machine.sh')];
const QUICK = ['demo', '--model', 'competent', '--mode', 'hinted'];
const sandboxLines = (stderr: string) => stderr.split('\n').filter((l) => /sandbox/i.test(l));

describe('nanobench demo', () => {
  it.skipIf(noBwrap)('prints the report, writes it as HTML and says how to open it', () => {
    const db = join(tempDir('nb-demo-'), 'demo.sqlite');
    const r = nanobench([...QUICK, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    // The models asked for, not the quick demo's four.
    expect(r.stderr).toMatch(/demo of competent: 1 run\(s\) per task/);
    expect(r.stderr).toMatch(/5 of 5 trials to run/);
    expect(sandboxLines(r.stderr)).toEqual([
      'nanobench demo: sandbox bwrap (bubblewrap works here): agents see the toolchain read-only, their workspace, nothing of NanoBench, and no network but the scripted model server',
    ]);
    // Five tasks, each once: the rate over tasks with its interval, the trials beside it.
    expect(r.stdout).toMatch(
      /\| scripted\/competent \| hinted \| 5 \| 100% \[57–100%\] \| ±22 pp \| 5\/5 \(100%\) \|/,
    );
    const html = db.replace(/\.sqlite$/, '-report.html');
    const tail = r.stdout.trimEnd().split('\n').slice(-3);
    expect(tail).toEqual([
      `HTML report (charts, every table): ${html}`,
      `Open it: xdg-open ${JSON.stringify(html)}`,
      `Every trial (transcript, diff, tests, label): nanobench view --db ${db}`,
    ]);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<svg');
    expect(page).toContain('scripted/competent');
  });

  it.skipIf(noBwrap)('--agent nanocoder,bare: both agents, paired, and the harness delta', () => {
    const db = join(tempDir('nb-demo-'), 'demo.sqlite');
    const r = nanobench([...QUICK, '--agent', 'nanocoder,bare', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/10 of 10 trials to run/);
    // competent's bare replies: right on two tasks, a hallucinated API on two, a diff on one.
    expect(r.stdout).toMatch(
      /\| nanocoder vs bare · scripted\/competent \| hinted \| 5 \| 1\.00 \| 0\.40 \| \+0\.60 .*\| pass \+3, hallucinated_api −2, unusable_edit −1 \|/,
    );
  });

  it('runs on a machine without bwrap with what is left, saying which in one line', () => {
    const db = join(tempDir('nb-demo-'), 'demo.sqlite');
    const r = nanobench([...QUICK, '--db', db, '--json'], { as: FRESH });
    expect(r.code, r.stderr).toBe(0);
    const kind = isRoot ? 'none-as-nobody' : 'none';
    expect(sandboxLines(r.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^nanobench: WARNING: --sandbox auto: bwrap unusable \\(bwrap \\(bubblewrap\\) is not installed\\), and the models are scripted \\(fixed replies\\); sandbox "${kind}": `,
        ),
      ),
    ]);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('finished');
    expect(out.trials.map((t: { score: number }) => t.score)).toEqual([1, 1, 1, 1, 1]);
    expect(existsSync(out.html_report)).toBe(true);
    const store = Store.open(db);
    try {
      const config = store.latestRun()!.config;
      expect(config.sandbox_used).toBe(kind);
      expect(config.sandbox_note).toMatch(/^auto: bwrap unusable .*, and the models are scripted/);
    } finally {
      store.close();
    }
  });

  it('demo --sandbox bwrap without bwrap, and run with an LLM agent, refuse in one line', () => {
    const db = join(tempDir('nb-demo-'), 'demo.sqlite');
    const demo = nanobench([...QUICK, '--db', db, '--sandbox', 'bwrap'], { as: FRESH });
    expect(demo.code).toBe(2);
    expect(demo.stderr).toMatch(
      /\nnanobench: --sandbox bwrap: bwrap \(bubblewrap\) is not installed; install bubblewrap .*\n$/,
    );
    // The same scripted model through `run`: the models may be real there, so no fallback.
    const run = nanobench(
      ['run', 'examples', '--agent', 'nanocoder', '--model', 'competent', '--db', db],
      { as: FRESH },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^nanobench: --sandbox auto: bwrap unusable \(bwrap \(bubblewrap\) is not installed\); an LLM agent does not run without a sandbox unless asked: fix bwrap or pass --sandbox none explicitly\n$/,
    );
  });
});
