// The admission gates, declared as data and run in order for each task. A gate whose
// prerequisites did not pass is skipped, so a broken task fails only the gates it breaks.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentDigest } from '../task/digest.js';
import { GATE_IDS, type GateId, type GateResult } from '../task/evidence.js';
import { taskFiles } from '../task/governance.js';
import { datasetDirOf } from '../task/load.js';
import { loadManifest, type Manifest } from '../task/manifest.js';
import { resolveDatasetArg } from '../task/registry.js';
import { InfraError, UserError } from '../util/errors.js';
import { unmountUnder } from '../workspace/layers.js';
import { contaminationGate } from './contamination.js';
import { GateContext, type ValidateOptions } from './context.js';
import { controlsGate } from './controls.js';
import { flakinessGate } from './flakiness.js';
import { repoScoreGate } from './repo-score.js';
import { reproducibleGate } from './reproducible.js';
import { runtimeGate } from './runtime.js';
import { schemaGate } from './schema.js';
import type { Gate } from './types.js';
import { verificationGate } from './verification.js';

export const GATES: readonly Gate[] = [
  {
    id: 'schema',
    checks: 'valid task schema v1, no placeholders left',
    needs: [],
    run: schemaGate,
  },
  {
    id: 'reproducible',
    checks: 'base_commit fetched and the environment built at it',
    needs: ['schema'],
    run: reproducibleGate,
  },
  {
    id: 'verification',
    checks: 'tests fail at base and pass with the golden patch',
    needs: ['reproducible'],
    run: verificationGate,
  },
  {
    id: 'flakiness',
    checks: 'identical per-test results on 3 consecutive runs at base',
    needs: ['reproducible'],
    run: flakinessGate,
  },
  {
    id: 'contamination',
    checks: 'merged after the dataset cutoff',
    needs: ['schema'],
    run: contaminationGate,
  },
  {
    id: 'repo_score',
    checks: 'repository scoring matrix >= 12/20',
    needs: ['reproducible'],
    run: repoScoreGate,
  },
  {
    id: 'controls',
    checks: 'oracle scores 1.0 and nop 0.0 through the trial pipeline',
    needs: ['verification'],
    run: controlsGate,
  },
  {
    id: 'runtime',
    checks: 'verifier time under 80% of verifier_sec',
    needs: ['reproducible'],
    run: runtimeGate,
  },
];

export interface TaskValidation {
  task_id: string | null;
  file: string;
  /** Dataset the task belongs to (where its evidence is kept). */
  dataset: string;
  /** Digest of the task file as judged (after --write recorded the test lists); null if unreadable. */
  digest: string | null;
  /** Its content digest (src/task/digest.ts contentDigest); null if unreadable. */
  content_digest: string | null;
  admissible: boolean;
  gates: GateResult[];
}

export function parseGateList(only: string[] | undefined): GateId[] | undefined {
  if (!only?.length) return undefined;
  const ids = only
    .flatMap((o) => o.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = ids.filter((id) => !(GATE_IDS as readonly string[]).includes(id));
  if (bad.length)
    throw new UserError(
      'BAD_OPTION',
      `--only: unknown gate(s) ${bad.join(', ')}; gates: ${GATE_IDS.join(', ')}`,
    );
  return ids as GateId[];
}

export async function validateTask(
  file: string,
  datasetDir: string,
  manifest: Manifest | undefined,
  opts: ValidateOptions,
  only?: GateId[],
  /** Stop at the first failed gate (the rest are skipped): `task mine` needs only the first reason. */
  failFast = false,
): Promise<TaskValidation> {
  const ctx = new GateContext(file, datasetDir, manifest, opts);
  const results: GateResult[] = [];
  // schema always runs: nothing else can be judged without the task.
  for (const gate of GATES.filter((g) => g.id === 'schema' || !only || only.includes(g.id))) {
    const started = Date.now();
    // Every gate needs the task schema loads, whether or not it lists it (`--only controls` on
    // a task whose schema fails skips controls instead of failing inside it).
    const needs: GateId[] = gate.id === 'schema' ? [] : ['schema', ...gate.needs];
    const blocker = needs.find((n) => results.some((r) => r.gate === n && r.status !== 'pass'));
    const failed = failFast ? results.find((r) => r.status === 'fail') : undefined;
    let r: GateResult;
    if (blocker)
      r = { gate: gate.id, status: 'skip', reason: `skipped: needs ${blocker} to pass`, ms: 0 };
    else if (failed)
      r = { gate: gate.id, status: 'skip', reason: `skipped: ${failed.gate} failed`, ms: 0 };
    else {
      if (ctx.loaded) ctx.log(`gate ${gate.id}`);
      try {
        const out = await gate.run(ctx);
        r = { gate: gate.id, ...out, ms: 0 };
      } catch (e) {
        if (!(e instanceof InfraError) && !(e instanceof UserError)) throw e;
        r = {
          gate: gate.id,
          status: 'fail',
          reason: e.message,
          fix: 'see the message; the gates before this one say more',
          ms: 0,
        };
      }
    }
    r.ms = Date.now() - started;
    results.push(r);
  }
  return {
    task_id: ctx.loaded?.task.task_id ?? null,
    file,
    dataset: datasetDir,
    digest: ctx.loaded?.digest ?? null,
    content_digest: ctx.loaded ? contentDigest(ctx.loaded.task) : null,
    admissible: results.every((r) => r.status === 'pass'),
    gates: results,
  };
}

/** Task files named by the arguments (datasets or single files), each with its dataset dir. */
export function expandTargets(paths: string[]): { file: string; datasetDir: string }[] {
  return paths.flatMap((p) => {
    const abs = resolveDatasetArg(p);
    if (statSync(abs).isFile()) return [{ file: abs, datasetDir: datasetDirOf(abs) }];
    const files = taskFiles(abs);
    if (files.length === 0)
      throw new UserError('DATASET_EMPTY', `${abs}: no task files (*.json) found`);
    return files.map((file) => ({ file, datasetDir: abs }));
  });
}

export async function validate(
  paths: string[],
  opts: Omit<ValidateOptions, 'workDir'> & { concurrency?: number },
  only?: GateId[],
  onTask?: (v: TaskValidation) => void,
): Promise<TaskValidation[]> {
  const targets = expandTargets(paths);
  const manifests = new Map<string, Manifest | undefined>();
  for (const t of targets)
    if (!manifests.has(t.datasetDir)) manifests.set(t.datasetDir, loadManifest(t.datasetDir));
  const workDir = mkdtempSync(join(tmpdir(), 'nanobench-validate-'));
  const results: (TaskValidation | undefined)[] = targets.map(() => undefined);
  let reported = 0;
  // Results are handed on in the targets' order, whatever order the tasks finish in.
  const flush = () => {
    while (reported < targets.length && results[reported]) onTask?.(results[reported++]!);
  };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      const t = targets[i];
      // Each task its own directory, so its workspaces (overlays) are unmounted without
      // touching the tasks still running beside it.
      const own = join(workDir, String(i));
      try {
        results[i] = await validateTask(
          t.file,
          t.datasetDir,
          manifests.get(t.datasetDir),
          { ...opts, workDir: own },
          only,
        );
      } finally {
        unmountUnder(own);
        rmSync(own, { recursive: true, force: true });
      }
      const v = results[i]!;
      opts.log?.(
        `${v.task_id ?? t.file}: ${v.admissible ? 'admissible' : 'not admissible'} in ${(v.gates.reduce((ms, g) => ms + g.ms, 0) / 1000).toFixed(1)}s (${++done}/${targets.length} done)`,
      );
      flush();
    }
  };
  try {
    const n = Math.max(1, Math.min(opts.concurrency ?? 1, targets.length));
    await Promise.all(Array.from({ length: n }, worker));
    return results as TaskValidation[];
  } finally {
    unmountUnder(workDir);
    rmSync(workDir, { recursive: true, force: true });
  }
}
