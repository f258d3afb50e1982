// `nanobench dataset fetch|manifest|release`: a dataset's repositories, its manifest, its versions.
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { calibrate, observationsOf, readStoredRuns } from '../calibration/calibration.js';
import { releaseDataset } from '../task/archive.js';
import { loadDataset } from '../task/load.js';
import {
  buildManifest,
  canonicalJson,
  loadManifest,
  manifestPath,
  writeManifest,
} from '../task/manifest.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import { fetchDataset } from '../workspace/fetch-dataset.js';
import { calibrationMode } from './calibration.js';
import type { Io } from './progress.js';
import { cacheDirOf, DB_FOR_CACHE } from './run.js';

export function registerDataset(program: Command, io: Io, setExit: (code: number) => void): void {
  const dataset = program
    .command('dataset')
    .description('dataset versions, their manifest, and the repositories they need');
  registerFetch(dataset, io, setExit);
  registerManifest(dataset, io, setExit);
  registerRelease(dataset, io);
}

/** `dataset fetch`: every repository of a dataset into the cache, commits and patches checked. */
function registerFetch(dataset: Command, io: Io, setExit: (code: number) => void): void {
  dataset
    .command('fetch')
    .description(
      "bring every repository a dataset needs into the cache (mirror first), check each task's base and PR commits, derive and digest-check the patches; run it again to resume",
    )
    .argument('[dataset]', 'dataset directory or shipped dataset name', 'nanobench-v1')
    .option('--mirror <dir>', 'local mirror tried first: DIR/<owner>/<name>(.git|.bundle)')
    .option(...DB_FOR_CACHE)
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
        cacheDir: cacheDirOf(o),
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
}

/** `dataset manifest`: write (or check) <dataset>/dataset.json from the task files. */
function registerManifest(dataset: Command, io: Io, setExit: (code: number) => void): void {
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

/**
 * What refuses a release: an active task changed since its activation, or (with the runs) one
 * saturated without a recorded reason.
 */
function releaseProblems(dir: string, shown: string, dbs: string[] | undefined, mode: string) {
  const tasks = loadDataset(dir).filter((t) => t.task.status.state === 'active');
  const runs = dbs ? readStoredRuns(dbs) : [];
  const observations = observationsOf(runs, tasks, calibrationMode(mode));
  return tasks.flatMap(
    (t) => calibrate(t, observations, { dataset: shown, dbs: dbs ?? [] }).problems,
  );
}

/** `dataset release`: freeze a version into archive/<version>/ with its notes. */
function registerRelease(dataset: Command, io: Io): void {
  dataset
    .command('release')
    .description(
      'release a version: notes from the manifest diff, the version frozen in archive/<version>/, retired tasks moved there and recorded in archive/deprecations.json',
    )
    .argument('[dataset]', 'dataset directory', '.')
    .requiredOption('--version <v>', 'the version to release (never one already in archive/)')
    .option(
      '--db <paths...>',
      'results databases to check saturation against: an active task saturated without a recorded reason refuses the release',
    )
    .option(
      '--mode <mode>',
      'hinted | navigation: the mode whose trials are observations',
      'hinted',
    )
    .option('--date <date>', 'the release date in the notes (default: today, UTC)')
    .option('--dry-run', 'print the release notes; write nothing')
    .option('--json', 'the notes as JSON on stdout')
    .action((arg: string, o) => {
      const dir = resolveDatasetArg(arg);
      if (o.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(o.date))
        throw new UserError(
          'BAD_OPTION',
          `--date must be a date such as 2026-12-01, got "${o.date}"`,
        );
      const shown = relative(process.cwd(), dir) || '.';
      const problems = releaseProblems(dir, shown, o.db, o.mode);
      if (!o.db)
        io.stderr.write(
          'nanobench: no --db: saturation was not checked against calibration runs\n',
        );
      const r = releaseDataset(dir, o.version, {
        date: o.date ?? new Date().toISOString().slice(0, 10),
        problems,
        dryRun: Boolean(o.dryRun),
      });
      io.stdout.write(o.json ? `${JSON.stringify(r.notes, null, 2)}\n` : r.markdown);
      if (o.dryRun) return;
      io.stderr.write(
        `nanobench: released ${r.manifest.name} ${r.manifest.version} (${r.manifest.tasks.length} tasks, ${r.manifest.digest}) into ${relative(process.cwd(), r.archive)}${r.moved.length ? `; retired and archived: ${r.moved.join(', ')}` : ''}; run it as it was released with: nanobench run ${shown}@${r.manifest.version}\n`,
      );
    });
}
