// The proxy's own way out: upstream calls honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY (lower-case
// first, as curl reads them), so NanoBench works behind a corporate proxy. An https upstream is
// reached through a CONNECT tunnel, so the key travels inside TLS end to end; an http upstream
// is asked of the proxy by absolute URL. Loopback upstreams never go through a proxy (Go's
// ProxyFromEnvironment does the same): the scripted model server and local models live there.
import { UserError } from '../util/errors.js';
import { redactUrl } from '../util/redact-url.js';

export interface ProxyRoute {
  /** The proxy, an http:// URL (credentials, if any, become Proxy-Authorization). */
  proxy: URL;
  /** The variable that named it, for messages. */
  variable: string;
}

type Env = Record<string, string | undefined>;

function firstSet(env: Env, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/** Does NO_PROXY exempt host:port? Entries: "*", a host, ".domain" or "*.domain", optional :port. */
export function noProxy(host: string, port: string, list: string | undefined): boolean {
  if (!list) return false;
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const raw of list.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    if (m[2] && m[2] !== port) continue;
    const name = m[1].replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    if (h === name || h.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy to reach `target` through, per the environment; undefined for a direct connection. */
export function proxyFor(target: URL, env: Env = process.env): ProxyRoute | undefined {
  const host = target.hostname;
  if (LOOPBACK.test(host.replace(/^\[|\]$/g, ''))) return undefined;
  const https = target.protocol === 'https:';
  const port = target.port || (https ? '443' : '80');
  if (noProxy(host, port, firstSet(env, ['no_proxy', 'NO_PROXY'])?.value)) return undefined;
  const set = firstSet(env, https ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY']);
  if (!set) return undefined;
  return { proxy: parseProxyUrl(set.value, set.name), variable: set.name };
}

/** A proxy URL as NanoBench accepts it; a UserError naming the variable (never its password). */
export function parseProxyUrl(value: string, variable: string): URL {
  let u: URL;
  try {
    // "host:3128" without a scheme is common in the wild and means http.
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new UserError(
      'BAD_PROXY',
      `${variable}: not a proxy URL (expected http://[user:password@]host:port)`,
    );
  }
  if (u.protocol !== 'http:')
    throw new UserError(
      'BAD_PROXY',
      `${variable}=${redactUrl(u.href)}: only http:// proxies are supported (https upstreams still go through them in a CONNECT tunnel)`,
    );
  return u;
}

/** Proxy-Authorization for credentials in the proxy URL. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/** Checks every upstream's proxy setting once, before any trial (a bad value is a user error). */
export function checkProxyEnv(upstreams: string[], env: Env = process.env): void {
  for (const u of upstreams) proxyFor(new URL(u), env);
}
