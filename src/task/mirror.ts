// Where a task's repository is in a local mirror (--mirror DIR, or a dataset's own mirror/).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** DIR/<owner>/<name>.git, .bundle or a plain directory, when one exists. */
export function inMirror(dir: string, repo: string): string | undefined {
  for (const suffix of ['.git', '.bundle', '']) {
    const p = join(dir, `${repo}${suffix}`);
    if (existsSync(p)) return p;
  }
  return undefined;
}
