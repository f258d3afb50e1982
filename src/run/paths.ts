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
  workspace(runId: string, key: string): string {
    return join(this.root, 'workspaces', runId, `${RunPaths.short(key)}-${this.execution}`);
  }
  scratch(runId: string, key: string): string {
    return join(this.root, 'scratch', runId, `${RunPaths.short(key)}-${this.execution}`);
  }
  artifacts(runId: string, key: string): string {
    return join(this.root, 'artifacts', runId, RunPaths.slug(key));
  }
}
