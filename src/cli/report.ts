// `nanobench report`: the report of a stored run as markdown (default), HTML or JSON.
import type { Command } from 'commander';
import { applyAudit, auditSentence, auditSummary } from '../audit/policy.js';
import { defaultReportInputs } from '../report/inputs.js';
import { renderMarkdown } from '../report/markdown.js';
import { buildReport } from '../report/model.js';
import { runView } from '../report/trial-view.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { writeUserFile } from '../util/write.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

const FORMATS = ['md', 'html', 'json'] as const;

export function registerReport(program: Command, io: Io): void {
  program
    .command('report')
    .description(
      'report on a stored run (default: the latest): models, taxonomy, breakdowns, matrix',
    )
    .argument('[runId]', 'run id')
    .option('--db <path>', 'results database', DEFAULT_DB)
    .option(
      '--format <format>',
      'md (fits a PR comment) | html (one self-contained file) | json',
      'md',
    )
    .option('--json', 'same as --format json')
    .option('--out <file>', 'write the report to FILE instead of stdout')
    .option(
      '--cutoffs <file>',
      'per-model knowledge cutoffs (default: examples/model-cutoffs.json)',
    )
    .action(async (runId: string | undefined, o) => {
      const format = o.json ? 'json' : o.format;
      if (!FORMATS.includes(format))
        throw new UserError('BAD_OPTION', `--format must be md, html or json, got "${format}"`);
      const store = Store.open(o.db, { reader: true });
      let text: string;
      try {
        const run = runId ? store.getRun(runId) : store.latestRun();
        if (!run)
          throw new UserError(
            'NO_RUN',
            runId ? `${o.db}: no run "${runId}"` : `${o.db}: no runs stored yet`,
          );
        const audit = store.latestAudit();
        const summary = auditSummary(audit);
        if (summary?.collapsed) io.stderr.write(`nanobench: ${auditSentence(summary)}\n`);
        // The report reads outcomes only (a light query); JSON adds every trial's telemetry.
        const outcomes = applyAudit(store.trialOutcomes(run.id), audit?.agreement);
        const report = buildReport(run, outcomes, defaultReportInputs(run, o.cutoffs, summary));
        if (format === 'md') text = renderMarkdown(report);
        else if (format === 'json') {
          const trials = applyAudit(store.trials(run.id), audit?.agreement);
          text = `${JSON.stringify({ ...runView(run, trials), report }, null, 2)}\n`;
        } else {
          // echarts is loaded only for HTML.
          const { renderHtml } = await import('../report/html.js');
          text = renderHtml(report);
        }
      } finally {
        store.close();
      }
      if (o.out) {
        writeUserFile(o.out, text, 'report');
        io.stderr.write(`nanobench: wrote ${o.out}\n`);
      } else io.stdout.write(text);
    });
}
