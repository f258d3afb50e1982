#!/usr/bin/env node
// The nanobench CLI entry point. Commands are thin: parse, resolve config, call the library.
// This is the only place that calls process.exit.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { isDiskFull } from '../util/disk-full.js';
import { InfraError, UserError } from '../util/errors.js';
import { NANOBENCH_VERSION } from '../util/version.js';
import { registerAudit } from './audit.js';
import { registerCalibration } from './calibration.js';
import { registerCi } from './ci.js';
import { registerCompare } from './compare.js';
import { registerContracts } from './contracts.js';
import { registerDataset } from './dataset.js';
import { registerDemo } from './demo.js';
import { registerExport } from './export.js';
import { registerMerge } from './merge.js';
import type { Io } from './progress.js';
import { registerReport } from './report.js';
import { registerRun } from './run.js';
import { registerSchemas } from './schemas.js';
import { registerTask } from './task.js';
import { registerValidate } from './validate.js';
import { registerView } from './view.js';
import { registerWorker } from './worker.js';

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let exitCode = 0;
  const program = new Command('nanobench')
    .description('Evaluate the Nanocoder coding agent on real tasks from merged pull requests.')
    .version(NANOBENCH_VERSION)
    // Program options only before the command: `dataset manifest --version 1.2.0` is the
    // command's own option, not a request for NanoBench's version.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerRun(program, io, (c) => {
    exitCode = c;
  });
  registerDemo(program, io, (c) => {
    exitCode = c;
  });
  registerReport(program, io);
  registerCompare(program, io, (c) => {
    exitCode = c;
  });
  registerSchemas(program, io);
  registerTask(program, io, (c) => {
    exitCode = c;
  });
  registerAudit(program, io);
  registerValidate(program, io, (c) => {
    exitCode = c;
  });
  registerDataset(program, io, (c) => {
    exitCode = c;
  });
  registerContracts(program, io, (c) => {
    exitCode = c;
  });
  registerCalibration(program, io, (c) => {
    exitCode = c;
  });
  registerWorker(program, io);
  registerExport(program, io);
  registerMerge(program, io);
  registerCi(program, io);
  registerView(program, io);
  oneLineErrors(program, 'nanobench');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (e) {
    // --help and --version exit 0; every other parse error (unknown option or command, missing
    // argument, no command at all) is a usage error: 2, like a UserError. 1 means a finding.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof UserError || e instanceof InfraError) {
      io.stderr.write(`nanobench: ${e.message}\n`);
      return e instanceof UserError ? 2 : 1;
    }
    // Not NanoBench's fault, wherever it struck: one line (a run stops resumable: runner.ts).
    if (isDiskFull(e)) {
      io.stderr.write(
        `nanobench: out of disk space: ${(e as Error).message}; free some and try again\n`,
      );
      return 1;
    }
    throw e;
  }
}

/** Commander's parse errors as one line, pointing at the command's --help (set on every command). */
function oneLineErrors(cmd: Command, name: string): void {
  cmd.configureOutput({
    outputError: (s, write) =>
      write(
        `nanobench: ${s
          .trim()
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' ')}; see "${name} --help"\n`,
      ),
  });
  for (const sub of cmd.commands) oneLineErrors(sub, `${name} ${sub.name()}`);
}

// Compare real paths: through npm's bin symlink (npx, npm i -g) argv[1] is the link, not main.js.
function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
const isEntry = isEntryPoint();
if (isEntry) {
  main(process.argv.slice(2)).then(
    // Exit only once stdout has drained: on a pipe, writes are async and process.exit would cut
    // a large --json document short.
    (code) => process.stdout.write('', () => process.exit(code)),
    (e) => {
      process.stderr.write(`nanobench: internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(70);
    },
  );
}
