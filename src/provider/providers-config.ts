// NanoBench's providers file: the upstreams a run may use, the wire format each speaks (`kind`),
// and what each accepts. It names the environment variable that holds a key, never a key: the
// file is safe to commit.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { formatIssue } from '../task/load.js';
import { UserError } from '../util/errors.js';
import {
  AUTH_STYLES,
  type AuthStyle,
  CREDENTIAL_HEADERS,
  DEFAULT_KIND,
  KINDS,
  PROVIDER_KINDS,
  type ProviderKind,
} from './kinds.js';
import type { Price } from './usage.js';

/** Looked for in the current directory when --providers-config is not given. */
export const DEFAULT_PROVIDERS_FILE = 'nanobench.providers.json';
/** Built in: the offline scripted model server. */
export const SCRIPTED = 'scripted';

const PriceSchema = z
  .object({
    input: z.number().nonnegative().describe('USD per million input (prompt) tokens'),
    output: z.number().nonnegative().describe('USD per million output (completion) tokens'),
  })
  .strict();

const ModelSchema = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1),
      price_per_million: PriceSchema.optional(),
      accepts_temperature: z.boolean().optional(),
    })
    .strict(),
]);

const ProviderSchema = z
  .object({
    // Nanocoder accepts only these characters in a provider name.
    name: z
      .string()
      .regex(/^[a-zA-Z0-9_-]+$/, 'letters, digits, _ and - only')
      .refine((n) => n !== SCRIPTED, `"${SCRIPTED}" is built in; choose another name`),
    kind: z
      .enum(PROVIDER_KINDS)
      .default(DEFAULT_KIND)
      .describe(
        "the API's wire format: openai-compatible (chat completions), anthropic (Messages), google (Gemini generateContent), openai-responses (OpenAI Responses)",
      ),
    base_url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')
      .optional()
      .describe(
        "the API's base URL; defaults to the public API for anthropic, google and openai-responses",
      ),
    auth: z
      .enum(AUTH_STYLES)
      .optional()
      .describe(
        "the header the key goes in: bearer (Authorization), api-key (Azure), x-api-key, x-goog-api-key; default: the kind's",
      ),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the NAME of an environment variable, not a key')
      .optional(),
    accepts_temperature: z.boolean().default(true),
    supports_stream_usage: z.boolean().default(true),
    temperature: z.number().min(0).max(2).default(0),
    concurrency: z
      .number()
      .int()
      .positive()
      .max(256)
      .optional()
      .describe(
        "requests this provider is sent at once (the run's agents for it: 1.5 times as many, as an agent also runs its tools); default 16, or 1 for a base_url on this machine (a local model serves one request at a time)",
      ),
    connect_timeout_sec: z
      .number()
      .positive()
      .default(30)
      .describe('give up on a provider that does not accept the connection within this'),
    idle_timeout_sec: z
      .number()
      .positive()
      .default(300)
      .describe('give up on a reply (or a stream) that sends nothing for this long'),
    price_per_million: PriceSchema.optional(),
    headers: z
      .record(z.string())
      .refine(
        (h) => !Object.keys(h).some((k) => CREDENTIAL_HEADERS.includes(k.toLowerCase())),
        'must not carry credentials; name the key variable in api_key_env',
      )
      .optional(),
    models: z.array(ModelSchema).min(1).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (!p.base_url && !KINDS[p.kind].defaultBaseUrl)
      ctx.addIssue({
        code: 'custom',
        path: ['base_url'],
        message: `required for kind "${p.kind}" (there is no public default)`,
      });
  });

const FileSchema = z
  .object({ providers: z.array(ProviderSchema).min(1) })
  .strict()
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.providers.forEach((p, i) => {
      if (seen.has(p.name))
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i, 'name'],
          message: `"${p.name}" is declared twice`,
        });
      seen.add(p.name);
    });
  });

export type ProviderDecl = z.infer<typeof ProviderSchema>;

/** One provider resolved for one model: what the proxy needs, minus the key. */
export interface UpstreamDecl {
  provider: string;
  kind: ProviderKind;
  baseUrl: string;
  auth: AuthStyle;
  apiKeyEnv?: string;
  acceptsTemperature: boolean;
  supportsStreamUsage: boolean;
  temperature: number;
  price?: Price;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

export function parseProvidersConfig(raw: unknown, file: string): ProviderDecl[] {
  const r = FileSchema.safeParse(raw);
  if (!r.success)
    throw new UserError(
      'INVALID_PROVIDERS',
      r.error.issues.map((i) => formatIssue(file, i)).join('\n'),
    );
  return r.data.providers;
}

export function loadProvidersConfig(file: string): ProviderDecl[] {
  if (!existsSync(file))
    throw new UserError('INVALID_PROVIDERS', `${file}: providers config not found`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('INVALID_PROVIDERS', `${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseProvidersConfig(raw, file);
}

/** The declaration for (provider, model); UserError when either is not declared. */
export function resolveUpstream(
  providers: ProviderDecl[],
  file: string,
  provider: string,
  model: string,
): UpstreamDecl {
  const p = providers.find((d) => d.name === provider);
  if (!p)
    throw new UserError(
      'UNKNOWN_PROVIDER',
      `provider "${provider}" is not declared in ${file} (declared: ${providers.map((d) => d.name).join(', ')}; built in: ${SCRIPTED})`,
    );
  const entries = p.models?.map((m) => (typeof m === 'string' ? { name: m } : m));
  const m = entries?.find((e) => e.name === model);
  if (entries && !m)
    throw new UserError(
      'UNKNOWN_MODEL',
      `model "${model}" is not in ${file} field "providers.${providers.indexOf(p)}.models" (declared: ${entries.map((e) => e.name).join(', ')})`,
    );
  const fromModel = m && typeof m === 'object' ? m : undefined;
  return {
    provider: p.name,
    kind: p.kind,
    baseUrl: (p.base_url ?? KINDS[p.kind].defaultBaseUrl!).replace(/\/+$/, ''),
    auth: p.auth ?? KINDS[p.kind].auth,
    apiKeyEnv: p.api_key_env,
    acceptsTemperature: fromModel?.accepts_temperature ?? p.accepts_temperature,
    supportsStreamUsage: p.supports_stream_usage,
    temperature: p.temperature,
    price: fromModel?.price_per_million ?? p.price_per_million,
    headers: p.headers ?? {},
    connectTimeoutMs: p.connect_timeout_sec * 1000,
    idleTimeoutMs: p.idle_timeout_sec * 1000,
  };
}

// Keys read once are kept here and removed from process.env, so no child process (Nanocoder,
// install commands, test suites, command agents) can inherit them.
const keys = new Map<string, string>();

/** The key a provider names, or a UserError before any trial when it is not set. */
export function takeApiKey(decl: UpstreamDecl, file: string): string | undefined {
  const name = decl.apiKeyEnv;
  if (!name) return undefined;
  const fromEnv = process.env[name];
  if (fromEnv) {
    keys.set(name, fromEnv);
    delete process.env[name];
  }
  const key = keys.get(name);
  if (!key)
    throw new UserError(
      'MISSING_API_KEY',
      `provider "${decl.provider}": environment variable ${name} is not set (${file}, field "api_key_env")`,
    );
  return key;
}

/** Requests a hosted provider (or the scripted server) is sent at once by default. */
export const HOSTED_REQUEST_SLOTS = 16;
/** A model served on this machine (Ollama, llama.cpp, LM Studio) answers one request at a time. */
export const LOCAL_REQUEST_SLOTS = 1;

/**
 * Agents per request slot of their provider. An agent spends part of each turn on its own work
 * (Nanocoder's start, reading a reply, running a tool); with one agent per request slot the
 * provider idles meanwhile. Measured with bench/run.mjs (README, "A run at the speed of its
 * provider").
 */
export const AGENTS_PER_REQUEST_SLOT = 1.5;

/** The agents a provider of `requests` request slots gets at once (src/run/slots.ts). */
export const agentsFor = (requests: number): number =>
  Math.max(1, Math.ceil(requests * AGENTS_PER_REQUEST_SLOT));

/** A base URL on this machine's loopback: a local model server, not a hosted API. */
export const isLocalUrl = (url: string | undefined): boolean => {
  if (!url) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
};

/**
 * Request slots per provider (src/run/slots.ts): the providers file's `concurrency`, else one for a
 * model on this machine and HOSTED_REQUEST_SLOTS for a hosted one. The scripted server counts as
 * hosted. No file: the scripted server's alone.
 */
export function providerConcurrency(file: string | undefined): Map<string, number> {
  const limits = new Map([[SCRIPTED, HOSTED_REQUEST_SLOTS]]);
  if (!file || !existsSync(file)) return limits;
  for (const p of loadProvidersConfig(file))
    limits.set(
      p.name,
      p.concurrency ?? (isLocalUrl(p.base_url) ? LOCAL_REQUEST_SLOTS : HOSTED_REQUEST_SLOTS),
    );
  return limits;
}

/** The provider names a providers file declares (for provider:model names), [] without one. */
export function declaredProviderNames(file: string | undefined): string[] {
  return file && existsSync(file) ? loadProvidersConfig(file).map((p) => p.name) : [];
}
