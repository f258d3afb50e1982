// `nanobench dataset manifest`: write (or check) <dataset>/dataset.json from the task files.
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadDataset } from '../task/load.js';
import {
  buildManifest,
  canonicalJson,
  loadManifest,
  manifestPath,
  writeManifest,
} from '../task/manifest.js';
import { resolveDatasetArg } from '../task/registry.js';
import { fetchDataset } from '../workspace/fetch-dataset.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

export function registerDataset(program: Command, io: Io, setExit: (code: number) => void): void {
  const dataset = program
    .command('dataset')
    .description('dataset versions, their manifest, and the repositories they need');
  dataset
    .command('fetch')
    .description(
      "bring every repository a dataset needs into the cache (mirror first), check each task's base and PR commits, derive and digest-check the patches; run it again to resume",
    )
    .argument('[dataset]', 'dataset directory or shipped dataset name', 'nanobench-v1')
    .option('--mirror <dir>', 'local mirror tried first: DIR/<owner>/<name>(.git|.bundle)')
    .option('--cache-dir <dir>', 'cache of source clones and environments (shared with run)')
    .option('--json', 'one JSON document on stdout')
    .action(async (name: string, o) => {
      const dir = resolveDatasetArg(name);
      // Calibrating tasks are fetched too: calibrating them means running them.
      const tasks = loadDataset(dir).filter((t) => t.task.status.state !== 'retired');
      const repos = new Set(tasks.map((t) => t.task.repo)).size;
      io.stderr.write(
        `nanobench: ${tasks.length} active or calibrating task(s) from ${repos} repositor${repos === 1 ? 'y' : 'ies'} in ${dir}\n`,
      );
      const results = await fetchDataset(tasks, {
        cacheDir: resolve(o.cacheDir ?? join(dirname(DEFAULT_DB), 'cache')),
        mirrorDir: o.mirror ? resolve(o.mirror) : undefined,
        log: (line) => io.stderr.write(`nanobench:   ${line}\n`),
        onRepo: (done, total, r) =>
          io.stderr.write(
            `nanobench: [${done}/${total}] ${r.repo}: ${r.status === 'ok' ? `ok (${r.cached ? 'cached' : `from ${r.kind} ${r.source}`}; ${r.tasks.length} task(s), commits present, patches match their digests) ${(r.ms / 1000).toFixed(1)}s` : `FAILED: ${r.error}`}\n`,
          ),
      });
      const failed = results.filter((r) => r.status === 'failed');
      if (o.json)
        io.stdout.write(
          `${JSON.stringify({ dataset: dir, repos: results, ok: failed.length === 0 }, null, 2)}\n`,
        );
      else
        io.stdout.write(
          `${results.length - failed.length} of ${results.length} repositor${results.length === 1 ? 'y' : 'ies'} ready${failed.length ? `; failed: ${failed.map((r) => r.repo).join(', ')}` : ''}\n`,
        );
      if (failed.length) setExit(1);
    });
  dataset
    .command('manifest')
    .description('write <dataset>/dataset.json: version, cutoff, active tasks with digests')
    .argument('[dataset]', 'dataset directory', '.')
    .option('--name <name>', 'dataset name (kept from the existing manifest otherwise)')
    .option('--version <v>', 'the version this manifest describes')
    .option('--cutoff <date>', 'contamination cutoff: tasks must be merged after it')
    .option('--check', 'write nothing; exit 1 when dataset.json is not up to date')
    .option('--json', 'print the manifest on stdout')
    .action((arg: string, o) => {
      const dir = resolveDatasetArg(arg);
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
