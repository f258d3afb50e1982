// Upstream calls honour HTTP(S)_PROXY and NO_PROXY. The https path through a CONNECT tunnel to a
// TLS upstream runs end to end in proxy-kinds-cli.test.ts (the certificate is trusted through
// NODE_EXTRA_CA_CERTS, which Node reads at start-up only); here: the rules, an http upstream
// through the proxy, and a proxy that refuses the tunnel.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderProxy, startProxy } from '../../src/provider/proxy.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { noProxy, parseProxyUrl, proxyFor } from '../../src/provider/upstream-proxy.js';
import { UserError } from '../../src/util/errors.js';
import { startStandInProxy } from './stand-in-http-proxy.js';

const KEY = 'sk-FAKE-upstream-proxy-0a1b2c3d4e';
const u = (s: string) => new URL(s);

describe('which upstream calls go through a proxy', () => {
  it('https uses https_proxy/HTTPS_PROXY, http uses http_proxy/HTTP_PROXY, lower case first', () => {
    const env = {
      HTTPS_PROXY: 'http://upper:3128',
      https_proxy: 'http://lower:3128',
      HTTP_PROXY: 'http://plain:8080',
    };
    expect(proxyFor(u('https://api.anthropic.com/v1'), env)).toMatchObject({
      variable: 'https_proxy',
      proxy: u('http://lower:3128'),
    });
    expect(proxyFor(u('http://models.internal/v1'), env)?.proxy.host).toBe('plain:8080');
    expect(proxyFor(u('https://api.openai.com/v1'), {})).toBeUndefined();
    // A proxy given without a scheme is http, as curl reads it.
    expect(proxyFor(u('https://x.test'), { HTTPS_PROXY: 'squid:3128' })?.proxy.href).toBe(
      'http://squid:3128/',
    );
  });

  it('loopback upstreams never go through a proxy; NO_PROXY exempts hosts, domains, ports', () => {
    const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' };
    for (const local of ['http://127.0.0.1:8080/v1', 'http://localhost:1/v1', 'http://[::1]:2/v1'])
      expect(proxyFor(u(local), env)).toBeUndefined();
    expect(noProxy('api.openai.com', '443', 'example.com, .openai.com')).toBe(true);
    expect(noProxy('openai.com', '443', '*.openai.com')).toBe(true);
    expect(noProxy('notopenai.com', '443', 'openai.com')).toBe(false);
    expect(noProxy('models.internal', '8080', 'models.internal:9090')).toBe(false);
    expect(noProxy('models.internal', '8080', 'models.internal:8080')).toBe(true);
    expect(noProxy('anything', '443', '*')).toBe(true);
    expect(proxyFor(u('https://api.openai.com/v1'), { ...env, NO_PROXY: 'openai.com' })).toBe(
      undefined,
    );
  });

  it('a bad proxy setting is one line naming the variable, never its password', () => {
    const err = (() => {
      try {
        parseProxyUrl('https://bob:s3cret@proxy:443', 'HTTPS_PROXY');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(UserError);
    expect(err?.message).toMatch(/^HTTPS_PROXY=https:\/\/bob:\*\*\*@proxy\/: only http:\/\//);
    expect(err?.message).not.toContain('s3cret');
    expect(() => parseProxyUrl('http://[bad', 'HTTP_PROXY')).toThrow(/HTTP_PROXY: not a proxy URL/);
  });
});

describe('the provider proxy through an HTTP proxy', () => {
  let server: ScriptedServer;
  let proxy: ProviderProxy;
  const saved = { ...process.env };
  beforeAll(async () => {
    server = await startScriptedServer([
      parseScript({ model: 'm', tasks: { '*': { steps: [{ final: 'hi' }] } } }, 'x'),
    ]);
    proxy = await startProxy({ secrets: [KEY] });
  });
  afterEach(() => {
    for (const k of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY'])
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });
  const open = (baseUrl: string) =>
    proxy.openTrial({
      provider: 'p',
      model: 'm',
      upstream: {
        provider: 'p',
        kind: 'anthropic',
        baseUrl,
        apiKey: KEY,
        acceptsTemperature: true,
        supportsStreamUsage: true,
        temperature: 0,
        headers: {},
        connectTimeoutMs: 5000,
      },
    });
  const ask = (baseUrl: string, key: string) =>
    fetch(`${baseUrl}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [], stream: true }),
    });

  it('an http upstream is asked of HTTP_PROXY by absolute URL, with Proxy-Authorization', async () => {
    const port = Number(new URL(server.url).port);
    const p = await startStandInProxy({ hosts: { 'models.internal': port } });
    try {
      process.env.HTTP_PROXY = p.url.replace('http://', 'http://nb:pa%24s@');
      const t = open('http://models.internal/v1');
      const r = await ask(t.baseUrl, t.apiKey);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('message_stop');
      expect(p.seen).toHaveLength(1);
      expect(p.seen[0]).toMatchObject({
        method: 'POST',
        target: 'http://models.internal/v1/messages',
      });
      expect(p.seen[0].headers['proxy-authorization']).toBe(
        `Basic ${Buffer.from('nb:pa$s').toString('base64')}`,
      );
      expect(server.requests.at(-1)?.credentials).toEqual({ 'x-api-key': KEY });
      expect(t.finish().details.tokens).toMatchObject({ output: 1 });
    } finally {
      await p.close();
    }
  });

  it('a proxy refusing the CONNECT tunnel is an unreachable provider, and saw no key', async () => {
    const p = await startStandInProxy({ hosts: {}, refuse: 403 });
    try {
      process.env.HTTPS_PROXY = p.url;
      const t = open('https://api.anthropic.test/v1');
      await expect(ask(t.baseUrl, t.apiKey)).rejects.toThrow(); // the agent sees a dropped connection
      expect(p.seen).toEqual([
        expect.objectContaining({ method: 'CONNECT', target: 'api.anthropic.test:443' }),
      ]);
      expect(JSON.stringify(p.seen)).not.toContain(KEY);
      const { details } = t.finish();
      expect(details.upstream_failure).toMatchObject({
        code: 'unreachable',
        message: expect.stringMatching(/refused CONNECT api\.anthropic\.test:443: 403/),
      });
    } finally {
      await p.close();
    }
  });

  it('NO_PROXY sends the same upstream directly', async () => {
    process.env.HTTP_PROXY = 'http://127.0.0.1:9'; // nothing listens: a proxied call would fail
    process.env.NO_PROXY = 'localhost';
    const t = open(`${server.url.replace('127.0.0.1', 'localhost')}/v1`);
    expect((await ask(t.baseUrl, t.apiKey)).status).toBe(200);
    t.finish();
  });
});
