// `task mine` is resumable: every decided candidate is kept in a state file (one per repository,
// in the cache by default), written after each candidate, so an interrupted or repeated mining
// session judges only what it has not decided. A verdict counts only for the options it was
// reached with (the size limit, narrowing, the verifier timeout): other options decide again.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../util/errors.js';
import { writeFailure } from '../util/write.js';
import type { Candidate } from './candidates.js';
import type { RejectReason, Timings } from './judge.js';

/** One mined candidate: its verdict, why, and where its task went. */
export interface MineRow {
  commit: string;
  pr?: number;
  kind: Candidate['kind'];
  subject: string;
  merged_at: string;
  status: 'admitted' | 'rejected';
  reason?: RejectReason;
  detail: string;
  task_id?: string;
  files: number;
  fail_to_pass?: number;
  pass_to_pass?: number;
  timings?: Timings;
  /** True when the verdict came from the state file (an earlier invocation). */
  resumed?: boolean;
  /** Where --out wrote the task, or why not. */
  written?: string;
  /** The admitted task (kept in the state so a later --out can write it). */
  task?: Record<string, unknown>;
}

interface StateFile {
  version: 1;
  repo: string;
  /** Verdicts by PR commit, with the options' fingerprint they were reached with. */
  decided: Record<string, { options: string; row: MineRow }>;
}

export class MineState {
  private constructor(
    readonly file: string,
    private readonly data: StateFile,
  ) {}

  static open(file: string, repo: string): MineState {
    if (!existsSync(file)) return new MineState(file, { version: 1, repo, decided: {} });
    let data: StateFile;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UserError(
        'BAD_STATE',
        `${file}: not a task mine state file (${(e as Error).message}); remove it to start over, or pass another --state`,
      );
    }
    if (data?.version !== 1 || typeof data.decided !== 'object' || data.decided === null)
      throw new UserError(
        'BAD_STATE',
        `${file}: not a task mine state file (no "version": 1 and "decided"); remove it or pass another --state`,
      );
    if (data.repo !== repo)
      throw new UserError(
        'BAD_STATE',
        `${file}: the state of ${data.repo}, not ${repo}; pass another --state`,
      );
    return new MineState(file, data);
  }

  get(commit: string, options: string): MineRow | undefined {
    const d = this.data.decided[commit];
    return d && d.options === options ? d.row : undefined;
  }

  /** Record a verdict and write the file (atomically: a kill never leaves half a file). */
  put(commit: string, options: string, row: MineRow): void {
    this.data.decided[commit] = { options, row };
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.tmp-${process.pid}`;
      writeFileSync(tmp, `${JSON.stringify(this.data, null, 1)}\n`);
      renameSync(tmp, this.file);
    } catch (e) {
      throw new UserError(
        'CANNOT_WRITE',
        `${this.file}: cannot write the state file (${writeFailure(e)})`,
      );
    }
  }
}
