// The GitHub REST calls behind `nanobench ci comment`: find our comment on a pull request by its
// hidden marker, then update it (PATCH) or create it (POST), so a PR carries one NanoBench
// comment however often the workflow runs. The token is sent, never printed: errors quote the
// method, the path and GitHub's message only, with the token redacted from them.
import { InfraError } from '../util/errors.js';
import { redactor } from '../util/redact.js';

export interface GitHubTarget {
  /** e.g. https://api.github.com (GitHub Enterprise: https://HOST/api/v3). */
  apiUrl: string;
  /** owner/name */
  repo: string;
  pr: number;
  token: string;
}

export interface UpsertResult {
  action: 'created' | 'updated';
  id: number;
  url: string | null;
}

interface IssueComment {
  id: number;
  body?: string;
  html_url?: string;
}

async function call<T>(t: GitHubTarget, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${t.apiUrl.replace(/\/+$/, '')}${path}`;
  // An error body (or a proxy's) may echo the token it was sent.
  const redact = redactor([t.token]);
  const fail = (message: string) =>
    new InfraError('github', redact(`${method} ${path}: ${message}`));
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${t.token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'nanobench',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw fail((e as Error).message);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 200);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not JSON: keep the start of the text
    }
    throw fail(`HTTP ${res.status} ${message}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Every comment on the PR (issue comments; 100 a page). */
async function listComments(t: GitHubTarget): Promise<IssueComment[]> {
  const all: IssueComment[] = [];
  for (let page = 1; page <= 50; page++) {
    const batch = await call<IssueComment[]>(
      t,
      'GET',
      `/repos/${t.repo}/issues/${t.pr}/comments?per_page=100&page=${page}`,
    );
    all.push(...batch);
    if (batch.length < 100) break;
  }
  return all;
}

export async function upsertComment(
  t: GitHubTarget,
  body: string,
  marker: string,
): Promise<UpsertResult> {
  const mine = (await listComments(t)).find((c) => c.body?.includes(marker));
  if (mine) {
    const c = await call<IssueComment>(t, 'PATCH', `/repos/${t.repo}/issues/comments/${mine.id}`, {
      body,
    });
    return { action: 'updated', id: c.id, url: c.html_url ?? null };
  }
  const c = await call<IssueComment>(t, 'POST', `/repos/${t.repo}/issues/${t.pr}/comments`, {
    body,
  });
  return { action: 'created', id: c.id, url: c.html_url ?? null };
}
