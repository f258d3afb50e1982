// `nanobench audit export|score`: the human audit of Level-4 labels (whitepaper §9.2).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { AuditKey } from '../audit/export.js';
import { exportAudit } from '../audit/export.js';
import { AUDIT_AGREEMENT_REQUIRED } from '../audit/policy.js';
import { reviewerLabels, scoreAudit } from '../audit/score.js';
import { intOption } from '../run/config.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { writeUserFile } from '../util/write.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('BAD_FILE', `${file}: cannot read the ${what} (${(e as Error).message})`);
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function registerAudit(program: Command, io: Io): void {
  const audit = program
    .command('audit')
    .description('human audit of the Level-4 labels (hallucinated_api, wrong_abstraction_layer)');

  audit
    .command('export')
    .description('write a blinded sample of Level-4 trials for a reviewer, and a private key file')
    .requiredOption('--run <runId>', 'the run to sample from')
    .requiredOption('--out <file>', 'the blinded items, for the reviewer')
    .option('--key <file>', 'the private key file (default: <out>.key.json)')
    .option('--sample <n>', 'at most this many items', '50')
    .option('--seed <seed>', 'seed of the sample (same seed, same sample)', 'nanobench')
    .option('--db <path>', 'results database', DEFAULT_DB)
    .action((o) => {
      const n = intOption(o.sample, '--sample');
      const keyFile = o.key ?? `${o.out.replace(/\.json$/, '')}.key.json`;
      const store = Store.open(o.db, { reader: true });
      try {
        const { doc, key } = exportAudit(store, o.db, o.run, { sample: n, seed: o.seed });
        writeUserFile(o.out, `${JSON.stringify(doc, null, 2)}\n`, 'blinded items');
        writeUserFile(keyFile, `${JSON.stringify(key, null, 2)}\n`, 'key file', 0o600);
        io.stderr.write(
          `nanobench: wrote ${doc.items.length} blinded item(s) to ${o.out} (give this to the reviewer)\nnanobench: wrote the key to ${keyFile}: keep it private, it un-blinds the items\n`,
        );
      } finally {
        store.close();
      }
    });

  audit
    .command('score')
    .description(
      "compare the reviewer's labels with the rule engine's; store and print the agreement",
    )
    .requiredOption('--key <file>', 'the key file written by audit export')
    .requiredOption('--labels <file>', "the reviewer's file: the export with each item's label set")
    .option('--reviewer <name>', 'who reviewed (recorded with the result)')
    .option('--db <path>', 'results database the audit is stored in', DEFAULT_DB)
    .option('--json', 'print the result as JSON')
    .action((o) => {
      const key = readJson(o.key, 'key file') as AuditKey;
      if (key?.format !== 'nanobench-audit-key/1')
        throw new UserError(
          'BAD_FILE',
          `${o.key}: not a key file written by "nanobench audit export"`,
        );
      const reviewed = readJson(o.labels, 'reviewed labels') as { reviewer?: unknown };
      const reviewer =
        o.reviewer ?? (typeof reviewed?.reviewer === 'string' ? reviewed.reviewer : 'unknown');
      const result = scoreAudit(key, reviewerLabels(reviewed, o.labels), reviewer);
      const store = Store.open(o.db, { mustExist: true });
      try {
        store.insertAudit({
          created_at: new Date().toISOString(),
          run_id: result.run_id,
          reviewer,
          items: result.items,
          agreed: result.agreed,
          agreement: result.agreement,
          details: {
            ci95: result.ci95,
            confusion: result.confusion,
            disagreements: result.disagreements,
          },
        });
      } finally {
        store.close();
      }
      if (o.json) {
        io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      io.stdout.write(
        `Level-4 audit of run ${result.run_id} by ${reviewer}: agreement ${result.agreed}/${result.items} = ${pct(result.agreement)} (95% CI ${pct(result.ci95.low)}-${pct(result.ci95.high)})\n`,
      );
      for (const d of result.disagreements)
        io.stdout.write(`  ${d.id} (${d.task_id}): engine ${d.engine}, reviewer ${d.reviewer}\n`);
      io.stdout.write(
        result.collapsed
          ? `Below ${pct(AUDIT_AGREEMENT_REQUIRED)}: reports now show hallucinated_api and wrong_abstraction_layer as implementation_error.\n`
          : `At least ${pct(AUDIT_AGREEMENT_REQUIRED)}: reports keep both Level-4 labels.\n`,
      );
    });
}
