// `nanobench dataset fetch`: bring every repository a dataset needs into the cache, check that it
// holds each task's base and PR commits, and derive (and digest-check) every reference task's
// patches, so a later run or validation needs no network. Repositories are independent: one that
// fails is reported and the others go on; clones already in the cache are reused, so running it
// again after a failure or an interruption resumes where it stopped.

import { existsSync } from 'node:fs';
import type { LoadedTask } from '../task/load.js';
import { InfraError, UserError } from '../util/errors.js';
import { type ResolveOptions, resolveTask } from './resolve-tasks.js';
import { ensureSourceClone, resolveSource, sourceClonePath } from './source.js';

export interface RepoFetch {
  repo: string;
  /** Where it was fetched from (a mirror path or the URL). */
  source: string;
  kind: string;
  tasks: string[];
  status: 'ok' | 'failed';
  /** True when the clone was already in the cache. */
  cached: boolean;
  ms: number;
  error?: string;
}

export async function fetchDataset(
  tasks: LoadedTask[],
  o: ResolveOptions & { onRepo?: (done: number, total: number, r: RepoFetch) => void },
): Promise<RepoFetch[]> {
  const groups = new Map<string, LoadedTask[]>();
  for (const lt of tasks) {
    const key = `${lt.task.repo}\0${resolveSource(lt, o.mirrorDir).location}`;
    groups.set(key, [...(groups.get(key) ?? []), lt]);
  }
  const out: RepoFetch[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    const source = resolveSource(first, o.mirrorDir);
    const started = Date.now();
    const r: RepoFetch = {
      repo: first.task.repo,
      source: source.location,
      kind: source.kind,
      tasks: group.map((t) => t.task.task_id),
      status: 'ok',
      cached: existsSync(sourceClonePath(o.cacheDir, first.task.repo)),
      ms: 0,
    };
    try {
      const commits = group.flatMap((t) => [
        t.task.base_commit,
        ...(t.task.pr_commit ? [t.task.pr_commit] : []),
      ]);
      await ensureSourceClone(o.cacheDir, first.task.repo, source, { ...o, commits });
      for (const lt of group) await resolveTask(lt, o);
    } catch (e) {
      if (!(e instanceof InfraError) && !(e instanceof UserError)) throw e;
      if (e instanceof InfraError && e.stage === 'interrupted') throw e;
      r.status = 'failed';
      r.error = e.message;
    }
    r.ms = Date.now() - started;
    out.push(r);
    o.onRepo?.(out.length, groups.size, r);
  }
  return out;
}
