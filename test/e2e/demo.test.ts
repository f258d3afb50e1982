// Issue #13: `nanobench demo` runs the real Nanocoder against a scripted model, prints the report
// and ends by pointing at the HTML report it wrote and the command that opens it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nanobench, tempDir } from '../helpers/cli.js';

describe('nanobench demo', () => {
  it('prints the report, writes it as HTML and says how to open it', () => {
    const db = join(tempDir('nb-demo-'), 'demo.sqlite');
    const r = nanobench(['demo', '--model', 'competent', '--mode', 'hinted', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/quick demo: 1 run per task/);
    expect(r.stderr).toMatch(/5 of 5 trials to run/);
    // Five tasks, each once: the rate over tasks with its interval, the trials beside it.
    expect(r.stdout).toMatch(
      /\| scripted\/competent \| hinted \| 5 \| 100% \[57–100%\] \| ±22 pp \| 5\/5 \(100%\) \|/,
    );
    const html = db.replace(/\.sqlite$/, '-report.html');
    const tail = r.stdout.trimEnd().split('\n').slice(-2);
    expect(tail).toEqual([
      `HTML report (charts, every table): ${html}`,
      `Open it: xdg-open ${JSON.stringify(html)}`,
    ]);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<svg');
    expect(page).toContain('scripted/competent');
  });
});
