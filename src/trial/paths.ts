// Every on-disk location of a run is built here, from one root (the directory of the database).
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

export class RunPaths {
  readonly root: string;
  constructor(
    readonly dbPath: string,
    cacheDir?: string,
  ) {
    this.root = dirname(resolve(dbPath));
    this.cacheDir = cacheDir ? resolve(cacheDir) : join(this.root, 'cache');
  }
  readonly cacheDir: string;
  /**
   * This execution: workspaces and scratch directories carry it, so a resumed run never works in
   * a directory an earlier (killed) execution, or its leftover agent, may still be writing.
   */
  readonly execution = randomBytes(4).toString('hex');

  private static slug(key: string): string {
    const readable = key.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
    return `${readable}-${RunPaths.short(key)}`;
  }
  private static short(key: string): string {
    return createHash('sha256').update(key).digest('hex').slice(0, 8);
  }
  /**
   * Short on purpose: test runners resolve every module through this path, and a long one costs
   * (measured 5-8% of a module-heavy Node suite for 80 more characters; bench/trial.mjs). The
   * readable key is in the artifacts directory and the trial record.
   */
  workspace(runId: string, key: string, copy = 0): string {
    return join(this.root, 'workspaces', runId, this.leaf(key, copy));
  }
  scratch(runId: string, key: string, copy = 0): string {
    return join(this.root, 'scratch', runId, this.leaf(key, copy));
  }
  artifacts(runId: string, key: string): string {
    return join(this.root, 'artifacts', runId, RunPaths.slug(key));
  }
  private leaf(key: string, copy: number): string {
    return `${RunPaths.short(key)}-${this.execution}${copy ? `.${copy}` : ''}`;
  }

  /**
   * Whether an entry of the workspaces or scratch directory is this execution's: a trial's
   * directory, any copy of it (`.N`), and what sits beside it (`.layers`, `.kept`, `-verifier`).
   */
  isOwn(entry: string): boolean {
    return new RegExp(`^[0-9a-f]+-${this.execution}(?:[.-]|$)`).test(entry);
  }

  private readonly inUse = new Set<string>();

  /**
   * The workspace and scratch directory of one trial execution, free for it alone: a trial this
   * process already runs (a queue that handed it out twice, say) keeps its own, and the second
   * gets the next copy. `release` once the trial's teardown is done.
   */
  claimTrialDirs(
    runId: string,
    key: string,
  ): { workspace: string; scratch: string; release: () => void } {
    let copy = 0;
    while (this.inUse.has(this.workspace(runId, key, copy))) copy++;
    const workspace = this.workspace(runId, key, copy);
    this.inUse.add(workspace);
    return {
      workspace,
      scratch: this.scratch(runId, key, copy),
      release: () => this.inUse.delete(workspace),
    };
  }
}
