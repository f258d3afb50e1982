// `nanobench validate` on Harbor tasks: two gates. `schema` is `task check`'s structural verdict;
// `controls` is the real one: through the trial pipeline, in a container of the task's
// environment, the oracle (solution/solve.sh) must earn the full reward and nop none. The PR
// gates (reproducibility at base_commit, fail_to_pass, flakiness of suites, contamination,
// repository score, runtime) have no Harbor counterpart and are not run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nopAgent, oracleAgent } from '../agent/controls.js';
import type { Agent } from '../agent/types.js';
import { checkHarborTask } from '../harbor/check.js';
import type { TrialRecord } from '../store/store.js';
import type { GateResult } from '../task/evidence.js';
import { harborDigest, loadHarborTask } from '../task/harbor.js';
import { runTrial } from '../trial/run-trial.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import { gateTrialEnv, gateTrialSpec } from './context.js';

export interface HarborValidation {
  task_id: string;
  file: string;
  dataset: string;
  digest: string | null;
  /** Harbor tasks have no calibration content digest (src/task/digest.ts is for PR tasks). */
  content_digest: null;
  admissible: boolean;
  gates: GateResult[];
}

const summary = (r: TrialRecord) =>
  r.status === 'error' ? `error (${r.error})` : `${r.score} (${r.label})`;

export async function validateHarbor(
  dir: string,
  dataset: string,
  o: { cacheDir: string; sandbox?: SandboxDriver; log?: (line: string) => void },
): Promise<HarborValidation> {
  const started = Date.now();
  const check = checkHarborTask(dir);
  const failed = check.checks.filter((c) => !c.ok);
  const gates: GateResult[] = [
    failed.length
      ? {
          gate: 'schema',
          status: 'fail',
          reason: failed.map((c) => `${c.check}: ${c.reason}`).join('; '),
          fix: failed.map((c) => c.fix).join('; '),
          ms: Date.now() - started,
        }
      : {
          gate: 'schema',
          status: 'pass',
          reason: 'a structurally valid Harbor task',
          ms: Date.now() - started,
        },
  ];
  const base = {
    task_id: check.task_id,
    file: join(dir, 'task.toml'),
    dataset,
    content_digest: null,
  };
  if (failed.length) {
    gates.push({
      gate: 'controls',
      status: 'skip',
      reason: 'skipped: needs schema to pass',
      ms: 0,
    });
    return { ...base, digest: null, admissible: false, gates };
  }
  const task = loadHarborTask(dir);
  const t0 = Date.now();
  if (!o.sandbox?.container) {
    gates.push({
      gate: 'controls',
      status: 'fail',
      reason: 'a Harbor task runs in its environment image: the controls need a container sandbox',
      fix: 'nanobench validate DIR --sandbox podman (offline: --build-arg BASE_IMAGE=<a local image>)',
      ms: 0,
    });
    return { ...base, digest: harborDigest(dir), admissible: false, gates };
  }
  const work = mkdtempSync(join(tmpdir(), 'nb-validate-harbor-'));
  try {
    const control = (agent: Agent) => {
      o.log?.(`${task.task_id}: running the ${agent.name} control trial`);
      const loaded = { task, file: base.file, datasetDir: dataset, digest: harborDigest(dir) };
      return runTrial(
        gateTrialSpec(loaded, agent.name),
        gateTrialEnv(
          { runId: 'validate', dir: work, cacheDir: o.cacheDir, sandbox: o.sandbox },
          agent,
        ),
      );
    };
    const oracle = await control(oracleAgent);
    const nop = await control(nopAgent);
    const problems = [
      ...(oracle.status !== 'scored' || oracle.score !== 1
        ? [`the oracle scored ${summary(oracle)}`]
        : []),
      ...(nop.status !== 'scored' || nop.score !== 0 ? [`nop scored ${summary(nop)}`] : []),
    ];
    gates.push(
      problems.length
        ? {
            gate: 'controls',
            status: 'fail',
            reason: problems.join('; '),
            fix: 'solution/solve.sh must earn the full reward and doing nothing none: run both and read tests-harbor.stdout; a nop reward means the environment already holds the answer or the verifier pays for nothing',
            ms: Date.now() - t0,
          }
        : {
            gate: 'controls',
            status: 'pass',
            reason: "the oracle earned the full reward and nop none, in the task's environment",
            ms: Date.now() - t0,
          },
    );
    return {
      ...base,
      digest: harborDigest(dir),
      admissible: problems.length === 0,
      gates,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
