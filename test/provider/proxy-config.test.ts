// The providers file: validation names the file and the field; keys come only from the
// environment, and are taken out of it so no child process inherits them.
import { describe, expect, it } from 'vitest';
import {
  parseProvidersConfig,
  resolveUpstream,
  takeApiKey,
} from '../../src/provider/providers-config.js';
import { UserError } from '../../src/util/errors.js';

const FILE = '/cfg/providers.json';
const openrouter = {
  name: 'openrouter',
  base_url: 'https://openrouter.ai/api/v1/',
  api_key_env: 'NB_TEST_OPENROUTER_KEY',
  price_per_million: { input: 1, output: 4 },
  models: [
    'a/b',
    { name: 'o/reasoner', accepts_temperature: false, price_per_million: { input: 3, output: 9 } },
  ],
};

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('providers config', () => {
  it('fills defaults and resolves a provider for a model', () => {
    const decls = parseProvidersConfig({ providers: [openrouter] }, FILE);
    expect(resolveUpstream(decls, FILE, 'openrouter', 'a/b')).toMatchObject({
      baseUrl: 'https://openrouter.ai/api/v1',
      acceptsTemperature: true,
      supportsStreamUsage: true,
      temperature: 0,
      price: { input: 1, output: 4 },
    });
    // Per-model settings win over the provider's.
    expect(resolveUpstream(decls, FILE, 'openrouter', 'o/reasoner')).toMatchObject({
      acceptsTemperature: false,
      price: { input: 3, output: 9 },
    });
  });

  it.each([
    [{ providers: [{ ...openrouter, base_url: 'ftp://x' }] }, /providers.0.base_url/],
    [{ providers: [{ ...openrouter, name: 'has space' }] }, /providers.0.name": letters, digits/],
    [{ providers: [{ ...openrouter, name: 'scripted' }] }, /"scripted" is built in/],
    [{ providers: [{ ...openrouter, temprature: 0 }] }, /unknown field\(s\) "temprature"/],
    [{ providers: [openrouter, openrouter] }, /providers.1.name": "openrouter" is declared twice/],
    [{ providers: [{ ...openrouter, headers: { Authorization: 'x' } }] }, /must not carry/],
    [{ providers: [] }, /field "providers"/],
    [{ providers: [{ ...openrouter, kind: 'bedrock' }] }, /providers.0.kind": .*anthropic/],
    [
      { providers: [{ ...openrouter, base_url: undefined }] },
      /base_url": required for kind "openai-compatible"/,
    ],
    [{ providers: [{ ...openrouter, headers: { 'X-Goog-Api-Key': 'x' } }] }, /must not carry/],
    [{ providers: [{ ...openrouter, auth: 'basic' }] }, /providers.0.auth"/],
  ])('rejects %j naming the file and field', (raw, pattern) => {
    const msg = errorOf(() => parseProvidersConfig(raw, FILE));
    expect(msg).toMatch(/^\/cfg\/providers.json: field "/);
    expect(msg).toMatch(pattern);
  });

  it('a key pasted where the variable name belongs is refused without being echoed', () => {
    const key = 'sk-or-v1-abcdef0123456789';
    const msg = errorOf(() =>
      parseProvidersConfig({ providers: [{ ...openrouter, api_key_env: key }] }, FILE),
    );
    expect(msg).toMatch(/api_key_env": the NAME of an environment variable/);
    expect(msg).not.toContain(key);
  });

  it('unknown providers and undeclared models are user errors', () => {
    const decls = parseProvidersConfig({ providers: [openrouter] }, FILE);
    expect(errorOf(() => resolveUpstream(decls, FILE, 'openai', 'x'))).toMatch(
      /provider "openai" is not declared in \/cfg\/providers.json \(declared: openrouter/,
    );
    expect(errorOf(() => resolveUpstream(decls, FILE, 'openrouter', 'zz'))).toMatch(
      /model "zz" is not in \/cfg\/providers.json field "providers.0.models"/,
    );
  });

  it('takes the key out of the environment; a missing variable names itself, not a value', () => {
    const decl = resolveUpstream(
      parseProvidersConfig({ providers: [openrouter] }, FILE),
      FILE,
      'openrouter',
      'a/b',
    );
    delete process.env.NB_TEST_OPENROUTER_KEY;
    expect(errorOf(() => takeApiKey(decl, FILE))).toMatch(
      /environment variable NB_TEST_OPENROUTER_KEY is not set \(\/cfg\/providers.json, field "api_key_env"\)/,
    );
    process.env.NB_TEST_OPENROUTER_KEY = 'sk-test-value';
    expect(takeApiKey(decl, FILE)).toBe('sk-test-value');
    expect(process.env.NB_TEST_OPENROUTER_KEY).toBeUndefined();
    expect(takeApiKey(decl, FILE)).toBe('sk-test-value'); // kept in memory for a second session
  });

  it("a kind per provider: the public API by default, its key header, or Azure's api-key", () => {
    const decls = parseProvidersConfig(
      {
        providers: [
          { name: 'claude', kind: 'anthropic', api_key_env: 'K1', models: ['claude-x'] },
          { name: 'gemini', kind: 'google', api_key_env: 'K2' },
          { name: 'oai', kind: 'openai-responses', api_key_env: 'K3' },
          {
            name: 'azure',
            base_url: 'https://r.openai.azure.com/openai/v1?api-version=2024-10-21',
            auth: 'api-key',
            api_key_env: 'K4',
          },
        ],
      },
      FILE,
    );
    expect(resolveUpstream(decls, FILE, 'claude', 'claude-x')).toMatchObject({
      kind: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      auth: 'x-api-key',
    });
    expect(resolveUpstream(decls, FILE, 'gemini', 'g')).toMatchObject({
      kind: 'google',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      auth: 'x-goog-api-key',
    });
    expect(resolveUpstream(decls, FILE, 'oai', 'o')).toMatchObject({
      kind: 'openai-responses',
      baseUrl: 'https://api.openai.com/v1',
      auth: 'bearer',
    });
    expect(resolveUpstream(decls, FILE, 'azure', 'a')).toMatchObject({
      kind: 'openai-compatible',
      auth: 'api-key',
      baseUrl: 'https://r.openai.azure.com/openai/v1?api-version=2024-10-21',
    });
  });
});
