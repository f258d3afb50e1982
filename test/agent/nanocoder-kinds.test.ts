// How each provider kind is pointed at the proxy (src/agent/nanocoder-kinds.ts): the codex
// credential, and the loader hook that redirects @ai-sdk/google's default base URL, run here by
// Node on stand-in packages (the real binary runs it in test/provider/proxy-kinds-cli.test.ts),
// including the ways it must fail closed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nanocoderConfig } from '../../src/agent/nanocoder.js';
import { GOOGLE_DEFAULT_BASE_URL, prepareKind } from '../../src/agent/nanocoder-kinds.js';

const ENDPOINT = { baseUrl: 'http://127.0.0.1:4321/trial/abc/v1beta', apiKey: 'nb-trial-abc' };

/** A directory with a stand-in @ai-sdk/google package and a script that uses it. */
function standIn(moduleSource: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'nb-kinds-hook-'));
  const pkg = path.join(dir, 'node_modules', '@ai-sdk', 'google');
  mkdirSync(path.join(pkg, 'dist'), { recursive: true });
  writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: '@ai-sdk/google', type: 'module', exports: './dist/index.mjs' }),
  );
  writeFileSync(path.join(pkg, 'dist', 'index.mjs'), moduleSource);
  writeFileSync(
    path.join(dir, 'main.mjs'),
    "const { createGoogleGenerativeAI } = await import('@ai-sdk/google');\nconsole.log(createGoogleGenerativeAI().baseURL);\n",
  );
  const config = path.join(dir, 'config');
  mkdirSync(config);
  return { dir, config };
}

const GOOGLE_LIKE = `export function createGoogleGenerativeAI(o = {}) {
  // e.g. https://generativelanguage.googleapis.com/v1beta/files/... (a comment stays as it is)
  return { baseURL: o.baseURL ?? ${JSON.stringify(GOOGLE_DEFAULT_BASE_URL)} };
}
`;

function runWith(nodeArgs: string[], dir: string) {
  const r = spawnSync(process.execPath, [...nodeArgs, path.join(dir, 'main.mjs')], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { ...r, output: `${r.stdout}\n${r.stderr}` };
}

describe('prepareKind', () => {
  it('google: the hook points the client at the proxy, leaves a marker, and the check passes', async () => {
    const { dir, config } = standIn(GOOGLE_LIKE);
    const setup = await prepareKind('google', config, 'gemini', ENDPOINT);
    expect(setup.nodeArgs).toEqual([
      '--import',
      path.join(config, 'nanobench-google-register.mjs'),
    ]);
    const without = runWith([], dir);
    expect(without.stdout.trim()).toBe(GOOGLE_DEFAULT_BASE_URL);
    expect(setup.check(without.output)).toMatch(/never loaded @ai-sdk\/google/);
    const r = runWith(setup.nodeArgs, dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(ENDPOINT.baseUrl);
    expect(setup.check(r.output)).toBeUndefined();
  });

  it('google: a client without the expected default fails to load, and the check says why', async () => {
    const { dir, config } = standIn(
      'export function createGoogleGenerativeAI() { return { baseURL: "https://elsewhere.test/v2" }; }\n',
    );
    const setup = await prepareKind('google', config, 'gemini', ENDPOINT);
    const r = runWith(setup.nodeArgs, dir);
    expect(r.status).not.toBe(0);
    expect(setup.check(r.output)).toMatch(
      /^.*NanoBench: cannot point Nanocoder's google client at the proxy: .*has no default base URL to replace/,
    );
  });

  it('openai-responses: a codex credential holding the dummy key, readable by its owner only', async () => {
    const { config } = standIn(GOOGLE_LIKE);
    const setup = await prepareKind('openai-responses', config, 'openai', {
      baseUrl: 'http://127.0.0.1:1/trial/x/v1',
      apiKey: 'nb-trial-x',
    });
    expect(setup.nodeArgs).toEqual([]);
    const file = path.join(config, 'codex-credentials.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      openai: { accessToken: 'nb-trial-x', accountId: 'nanobench' },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the provider entry names the sdkProvider of each kind', () => {
    const o = {
      toolProfile: 'full',
      maxTurns: 5,
      contextWindow: 1000,
      requestTimeoutMs: 1,
    } as const;
    const entry = (kind?: 'anthropic' | 'google' | 'openai-responses') =>
      nanocoderConfig({ provider: 'p', model: 'm', endpoint: { ...ENDPOINT, kind } }, o).nanocoder
        .providers[0].sdkProvider;
    expect([entry(), entry('anthropic'), entry('google'), entry('openai-responses')]).toEqual([
      'openai-compatible',
      'anthropic',
      'google',
      'chatgpt-codex',
    ]);
  });
});
