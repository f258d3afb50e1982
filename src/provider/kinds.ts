// The wire formats Nanocoder 1.30 speaks, one per provider kind, and what the proxy must know of
// each: where requests go, which header carries the key, where the temperature lives, what the
// conversation is called (cassettes store it as a delta), and how errors read. Facts from
// Nanocoder's dist/ai-sdk-client/providers/provider-factory.js and the AI SDK packages it
// bundles (@ai-sdk/openai-compatible 2.0, @ai-sdk/anthropic 3.0, @ai-sdk/google 3.0,
// @ai-sdk/openai 3.0).

export const PROVIDER_KINDS = [
  'openai-compatible',
  'anthropic',
  'google',
  'openai-responses',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export const DEFAULT_KIND: ProviderKind = 'openai-compatible';

/** How a key travels: Authorization: Bearer, Azure's api-key, Anthropic's, Google's header. */
export const AUTH_STYLES = ['bearer', 'api-key', 'x-api-key', 'x-goog-api-key'] as const;
export type AuthStyle = (typeof AUTH_STYLES)[number];

export interface KindInfo {
  /**
   * Nanocoder's `sdkProvider` for this format. OpenAI's own client (Responses API) is reachable
   * in 1.30 only as "chatgpt-codex" (a stored credential, any base URL); "github-copilot" trades a
   * GitHub token for its own first and so cannot be pointed at a proxy.
   */
  sdkProvider: 'openai-compatible' | 'anthropic' | 'google' | 'chatgpt-codex';
  /** The path segment after the base URL's origin that the client's requests carry. */
  version: 'v1' | 'v1beta';
  /** The header the client (and, unless the providers file says otherwise, the API) uses. */
  auth: AuthStyle;
  /** The public API, when the providers file names no base_url. */
  defaultBaseUrl?: string;
  /** The request field holding the conversation, which only grows from request to request. */
  history: 'messages' | 'contents' | 'input';
  /** Request headers of the client that the API needs too (everything else stays here). */
  passHeaders: string[];
}

export const KINDS: Record<ProviderKind, KindInfo> = {
  'openai-compatible': {
    sdkProvider: 'openai-compatible',
    version: 'v1',
    auth: 'bearer',
    history: 'messages',
    passHeaders: [],
  },
  anthropic: {
    sdkProvider: 'anthropic',
    version: 'v1',
    auth: 'x-api-key',
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    history: 'messages',
    passHeaders: ['anthropic-version', 'anthropic-beta'],
  },
  google: {
    sdkProvider: 'google',
    version: 'v1beta',
    auth: 'x-goog-api-key',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    history: 'contents',
    passHeaders: [],
  },
  'openai-responses': {
    sdkProvider: 'chatgpt-codex',
    version: 'v1',
    auth: 'bearer',
    defaultBaseUrl: 'https://api.openai.com/v1',
    history: 'input',
    passHeaders: [],
  },
};

/** One model request as a kind names it: the path after the version segment. */
export interface Route {
  /** Path after `/v1/` (or `/v1beta/`), e.g. "chat/completions", "models/x:streamGenerateContent". */
  path: string;
  /** Gemini names the model in the path, not the body. */
  model?: string;
  /** Gemini says "stream" by the method; the others in the body. */
  stream?: boolean;
}

const GEMINI = /^models\/([^/:]+):(streamGenerateContent|generateContent)$/;

/** The model request `path` is for this kind, or undefined when the kind serves no such path. */
export function matchRoute(kind: ProviderKind, path: string): Route | undefined {
  switch (kind) {
    case 'openai-compatible':
      return path === 'chat/completions' ? { path } : undefined;
    case 'anthropic':
      return path === 'messages' ? { path } : undefined;
    case 'openai-responses':
      return path === 'responses' ? { path } : undefined;
    case 'google': {
      const m = GEMINI.exec(path);
      return m
        ? { path, model: decodeURIComponent(m[1]), stream: m[2] === 'streamGenerateContent' }
        : undefined;
    }
  }
}

/** What a kind's client calls, for error messages. */
export const ROUTE_NAMES: Record<ProviderKind, string> = {
  'openai-compatible': 'POST /v1/chat/completions',
  anthropic: 'POST /v1/messages',
  google: 'POST /v1beta/models/{model}:streamGenerateContent (or :generateContent)',
  'openai-responses': 'POST /v1/responses',
};

type Headers = Record<string, string | string[] | undefined>;

/** The key a request carries in the header of `style`. */
export function keyFrom(style: AuthStyle, headers: Headers): string | undefined {
  const v = headers[style === 'bearer' ? 'authorization' : style];
  if (typeof v !== 'string') return undefined;
  if (style !== 'bearer') return v;
  return /^Bearer\s+(.+)$/i.exec(v)?.[1];
}

/** The header that carries `key` in `style`. */
export function keyHeader(style: AuthStyle, key: string): [string, string] {
  return style === 'bearer' ? ['authorization', `Bearer ${key}`] : [style, key];
}

/** Headers that carry credentials in some style: never taken from a providers file or the agent. */
export const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'x-api-key', 'x-goog-api-key'];

type Body = Record<string, unknown>;

/** The request with `temperature` as sent upstream (null: none, whatever the agent asked). */
export function withTemperature(kind: ProviderKind, body: Body, t: number | null): Body {
  const out: Body = { ...body };
  if (kind === 'google') {
    // Gemini keeps sampling parameters in generationConfig.
    const gc = { ...((body.generationConfig as Body | undefined) ?? {}) };
    delete gc.temperature;
    if (t !== null) gc.temperature = t;
    out.generationConfig = gc;
    return out;
  }
  delete out.temperature;
  if (t !== null) out.temperature = t;
  return out;
}

/** The temperature a request asks for, if any. */
export function temperatureOf(kind: ProviderKind, body: Body): unknown {
  return kind === 'google'
    ? (body.generationConfig as Body | undefined)?.temperature
    : body.temperature;
}

// ---- errors ----

/** What a provider failure means for the trial. */
export type ErrorClass = 'context_length' | 'rate_limit' | 'quota' | 'server_error' | 'other';

// Each format's wording: OpenAI's "maximum context length" / context_length_exceeded, llama.cpp's
// "available context size", Anthropic's "prompt is too long", Gemini's "input token count ...
// exceeds the maximum number of tokens".
const CONTEXT =
  /maximum context length|context_length_exceeded|context size|context window|prompt is too long|exceeds the maximum number of tokens|too many tokens/i;
// OpenAI's insufficient_quota, Gemini's "exceeded your current quota", Anthropic's credit balance.
const QUOTA = /quota|credit balance|billing/i;
const RATE = /rate.?limit|RESOURCE_EXHAUSTED|too many requests/i;
const SERVER = /overloaded|server_error|api_error|INTERNAL|UNAVAILABLE/;

/** Classify a failure by its status and the error's message and code, in any of the formats. */
export function classifyError(status: number, message: string, code?: string): ErrorClass {
  const text = `${code ?? ''} ${message}`;
  if (CONTEXT.test(text)) return 'context_length';
  if ([0, 400, 402, 403, 429].includes(status) && QUOTA.test(text)) return 'quota';
  if (status === 429 || RATE.test(text)) return 'rate_limit';
  if (status >= 500 || SERVER.test(text)) return 'server_error';
  return 'other';
}

/**
 * How a provider refused service, in any format: the key (401, 403), the account's money (402, a
 * quota), the model name (404), its rate limit (429) or its own failure (5xx). Each is an infra
 * error of the trial (stage `provider`, this code), never the model's score; a context-length
 * error is the model's and is no refusal. Undefined for anything else (a 400 about the request).
 */
export type Refusal = 'auth' | 'billing' | 'model_not_found' | 'rate_limited' | 'server_error';

export function refusalOf(status: number, cls: ErrorClass): Refusal | undefined {
  if (cls === 'context_length') return undefined;
  if (cls === 'quota' || status === 402) return 'billing';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'model_not_found';
  if (cls === 'rate_limit' || status === 429) return 'rate_limited';
  if (cls === 'server_error' || status >= 500) return 'server_error';
  return undefined;
}

/** What a refusal means, in a reader's words. */
export const REFUSAL_TEXT: Record<Refusal, string> = {
  auth: 'the provider refused the key',
  billing: 'the provider refused for billing (no credit or quota left)',
  model_not_found: 'the provider has no such model',
  rate_limited: 'the provider rate-limited every attempt',
  server_error: 'the provider failed (server error)',
};

/** The message and code of an error object in any of the four formats, or undefined. */
export function errorOf(obj: unknown): { message: string; code?: string } | undefined {
  const o = obj as Body | null;
  if (!o || typeof o !== 'object') return undefined;
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  // Responses API: an `error` event, or a failed response.
  if (o.type === 'error' && typeof o.message === 'string')
    return { message: o.message, code: str(o.code) };
  if (o.type === 'response.failed') {
    const e = (o.response as Body | undefined)?.error as Body | undefined;
    return { message: str(e?.message) ?? 'response failed', code: str(e?.code) };
  }
  const e = o.error as Body | string | undefined;
  if (!e) return undefined;
  if (typeof e === 'string') return { message: e };
  // OpenAI {message, type, code}; Anthropic {type, message}; Gemini {code: 400, message, status}.
  const code = str(e.code) ?? str(e.status) ?? str(e.type);
  return { message: str(e.message) ?? code ?? 'error', ...(code && { code }) };
}

/** An error reply in the kind's own shape, so the agent's client reads it as its API's. */
export function errorReply(
  kind: ProviderKind,
  status: number,
  message: string,
  code: string,
): object {
  switch (kind) {
    case 'anthropic':
      return { type: 'error', error: { type: anthropicType(status, code), message } };
    case 'google':
      return { error: { code: status, message, status: googleStatus(status) } };
    default:
      return {
        error: { message, type: openaiType(status), param: null, code },
      };
  }
}

function anthropicType(status: number, code: string): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status >= 500) return 'api_error';
  return code === 'overloaded' ? 'overloaded_error' : 'invalid_request_error';
}

function googleStatus(status: number): string {
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status >= 500) return 'INTERNAL';
  return 'INVALID_ARGUMENT';
}

function openaiType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * The message a provider sends when a request is over its context, in the kind's wording (so the
 * agent stops as it would on that provider), followed by `why`. Without counts (a request budget)
 * the wording stays and the numbers go.
 */
export function contextMessage(
  kind: ProviderKind,
  why: string,
  counts?: { limit: number; used: number },
): string {
  const c = counts;
  switch (kind) {
    case 'anthropic':
      return `prompt is too long${c ? `: ${c.used} tokens > ${c.limit} maximum` : ''}${why}`;
    case 'google':
      return c
        ? `The input token count (${c.used}) exceeds the maximum number of tokens allowed (${c.limit}).${why}`
        : `The input exceeds the maximum number of tokens allowed.${why}`;
    default:
      return c
        ? `This model's maximum context length is ${c.limit} tokens. However, your messages resulted in ${c.used} tokens.${why}`
        : `This model's maximum context length is exceeded.${why}`;
  }
}

// ---- request shapes (replay divergence) ----

type Item = Record<string, unknown>;

/** Roles and tool-call names of a request's conversation: a replay "diverges" when they differ. */
export function requestShape(kind: ProviderKind, body: unknown): string {
  const list = (body as Body | null)?.[KINDS[kind].history];
  if (!Array.isArray(list)) return '';
  return (list as Item[])
    .map((m) => {
      const names = toolNames(kind, m);
      const who = (m?.role ?? m?.type) as string | undefined;
      return `${who}${names.map((n) => `:${n}`).join('')}`;
    })
    .join(',');
}

function toolNames(kind: ProviderKind, m: Item): string[] {
  if (!m || typeof m !== 'object') return [];
  switch (kind) {
    case 'openai-compatible':
      return ((m.tool_calls as Item[] | undefined) ?? []).map((t) =>
        String((t?.function as Item | undefined)?.name),
      );
    case 'anthropic':
      return Array.isArray(m.content)
        ? (m.content as Item[]).filter((c) => c?.type === 'tool_use').map((c) => String(c.name))
        : [];
    case 'google':
      return ((m.parts as Item[] | undefined) ?? [])
        .filter((p) => p?.functionCall)
        .map((p) => String((p.functionCall as Item).name));
    case 'openai-responses':
      return m.type === 'function_call' ? [String(m.name)] : [];
  }
}
