// How Nanocoder 1.30 is pointed at the NanoBench proxy for each provider kind. Facts from its
// dist/ai-sdk-client/providers/provider-factory.js:
// - openai-compatible and anthropic take the provider entry's baseUrl and apiKey;
// - chatgpt-codex (OpenAI's own client, Responses API) takes baseUrl, but its key is an access
//   token read from <config dir>/codex-credentials.json (no expiresAt: never refreshed);
// - google is created with the apiKey only: no baseURL reaches @ai-sdk/google, whose default is
//   https://generativelanguage.googleapis.com/v1beta. A Node loader hook (module.register) loaded
//   with --import rewrites that one default in @ai-sdk/google's module to the proxy's URL and
//   leaves a marker; without the marker the trial is an infra error, never a score.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_KIND, KINDS, type ProviderKind } from '../provider/kinds.js';

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const MARKER = 'nanobench-google-redirected';
const FAILED = "NanoBench: cannot point Nanocoder's google client at the proxy";

/** The loader hook: data is { baseUrl, marker }. Plain JavaScript, run by Nanocoder's Node. */
const HOOKS = `// Written by NanoBench for one trial: see src/agent/nanocoder-kinds.ts.
import { writeFileSync } from 'node:fs';
let data;
export async function initialize(d) { data = d; }
const DEFAULT = ${JSON.stringify(JSON.stringify(GOOGLE_DEFAULT_BASE_URL))};
export async function load(url, context, nextLoad) {
  const r = await nextLoad(url, context);
  if (!url.includes('/@ai-sdk/google/') || r.source == null) return r;
  const src = typeof r.source === 'string' ? r.source : Buffer.from(r.source).toString('utf8');
  if (!src.includes('createGoogleGenerativeAI')) return r;
  if (!src.includes(DEFAULT))
    throw new Error(${JSON.stringify(`${FAILED}: `)} + url + ' has no default base URL to replace');
  writeFileSync(data.marker, url + '\\n');
  return { ...r, source: src.split(DEFAULT).join(JSON.stringify(data.baseUrl)) };
}
`;

export interface KindSetup {
  /** Node options before cli.js. */
  nodeArgs: string[];
  /** After the run: an infra error when the setup did not take. */
  check(output: string): string | undefined;
}

/**
 * Writes what `kind` needs into Nanocoder's private config directory (the trial's scratch, which
 * the sandbox shows at the same path) and says how to start Node.
 */
export async function prepareKind(
  kind: ProviderKind = DEFAULT_KIND,
  configDir: string,
  provider: string,
  endpoint: { baseUrl: string; apiKey: string },
): Promise<KindSetup> {
  const none: KindSetup = { nodeArgs: [], check: () => undefined };
  if (KINDS[kind].sdkProvider === 'chatgpt-codex') {
    const credential = { [provider]: { accessToken: endpoint.apiKey, accountId: 'nanobench' } };
    await writeFile(path.join(configDir, 'codex-credentials.json'), JSON.stringify(credential), {
      mode: 0o600,
    });
    return none;
  }
  if (kind !== 'google') return none;
  const hooks = path.join(configDir, 'nanobench-google-hooks.mjs');
  const register = path.join(configDir, 'nanobench-google-register.mjs');
  const marker = path.join(configDir, MARKER);
  await writeFile(hooks, HOOKS);
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`./${path.basename(hooks)}`)}, import.meta.url, { data: ${JSON.stringify({ baseUrl: endpoint.baseUrl, marker })} });\n`,
  );
  return {
    nodeArgs: ['--import', register],
    check: (output) => {
      const failed = output.split('\n').find((l) => l.includes(FAILED));
      if (failed) return failed.trim().slice(0, 500);
      if (!existsSync(marker))
        return `Nanocoder never loaded @ai-sdk/google, so NanoBench could not point it at the proxy (${GOOGLE_DEFAULT_BASE_URL} would have been called)`;
      return undefined;
    },
  };
}
