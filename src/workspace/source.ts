// Where a task's repository comes from. Local copies win over the network, in this order:
// --mirror DIR, the dataset's own mirror/ directory, a local repo_url; a remote URL last.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { LoadedTask } from '../task/load.js';

export interface RepoSource {
  /** Path or URL git can fetch from. */
  location: string;
  kind: 'mirror' | 'dataset-mirror' | 'local' | 'remote';
}

/** DIR/<owner>/<name>.git, .bundle or a plain directory, when one exists. */
export function inMirror(dir: string, repo: string): string | undefined {
  for (const suffix of ['.git', '.bundle', '']) {
    const p = join(dir, `${repo}${suffix}`);
    if (existsSync(p)) return p;
  }
  return undefined;
}

export function resolveSource(lt: LoadedTask, mirrorDir?: string): RepoSource {
  const { repo, repo_url } = lt.task;
  if (mirrorDir) {
    const hit = inMirror(resolve(mirrorDir), repo);
    if (hit) return { location: hit, kind: 'mirror' };
  }
  const own = inMirror(join(lt.datasetDir, 'mirror'), repo);
  if (own) return { location: own, kind: 'dataset-mirror' };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(repo_url) && !repo_url.startsWith('git@')) {
    const p = isAbsolute(repo_url) ? repo_url : resolve(lt.file, '..', repo_url);
    if (existsSync(p)) return { location: p, kind: 'local' };
  }
  return { location: repo_url, kind: 'remote' };
}
