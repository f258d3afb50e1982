// `nanobench dataset manifest`: write (or check) <dataset>/dataset.json from the task files.
import type { Command } from 'commander';
import {
  buildManifest,
  canonicalJson,
  loadManifest,
  manifestPath,
  writeManifest,
} from '../task/manifest.js';
import type { Io } from './progress.js';

export function registerDataset(program: Command, io: Io, setExit: (code: number) => void): void {
  const dataset = program.command('dataset').description('dataset versions and their manifest');
  dataset
    .command('manifest')
    .description('write <dataset>/dataset.json: version, cutoff, active tasks with digests')
    .argument('[dataset]', 'dataset directory', '.')
    .option('--name <name>', 'dataset name (kept from the existing manifest otherwise)')
    .option('--version <v>', 'the version this manifest describes')
    .option('--cutoff <date>', 'contamination cutoff: tasks must be merged after it')
    .option('--check', 'write nothing; exit 1 when dataset.json is not up to date')
    .option('--json', 'print the manifest on stdout')
    .action((dir: string, o) => {
      const prev = loadManifest(dir);
      const next = buildManifest(dir, { name: o.name, version: o.version, cutoff: o.cutoff });
      const file = manifestPath(dir);
      if (o.json) io.stdout.write(`${JSON.stringify(next, null, 2)}\n`);
      const same = prev !== undefined && canonicalJson(prev) === canonicalJson(next);
      if (o.check) {
        io.stderr.write(
          same
            ? `nanobench: ${file} is up to date (${next.digest})\n`
            : `nanobench: ${file} is out of date; run: nanobench dataset manifest ${dir}\n`,
        );
        if (!same) setExit(1);
        return;
      }
      writeManifest(dir, next);
      io.stderr.write(
        `nanobench: wrote ${file}: ${next.name} ${next.version}, ${next.tasks.length} active, ${next.retired.length} retired, ${next.digest}\n`,
      );
      if (prev && prev.digest !== next.digest && prev.version === next.version)
        io.stderr.write(
          `nanobench: the tasks changed but the version is still ${next.version}; published versions are never rewritten: pass --version\n`,
        );
    });
}
