// The run's preflight: before the first trial, one minimal request per (provider, model) of the
// run, sent through the provider proxy exactly as a trial's requests go (the same upstream, key
// header, temperature, HTTPS_PROXY and redaction), so that a refused key, an empty account or a
// misspelt model stops the run within seconds instead of becoming every trial's error. Only a
// definite refusal stops it (401/403, 402 or a quota, 404); a rate limit, a server error or a
// provider that does not answer may pass, so the run goes on and says so in one line (trials it
// hits are stored as provider errors, re-run later with `run --resume --retry-errors`).
import {
  classifyError,
  errorOf,
  KINDS,
  keyHeader,
  type ProviderKind,
  REFUSAL_TEXT,
  type Refusal,
  refusalOf,
} from './kinds.js';
import type { ProviderProxy, TrialOptions } from './proxy.js';

/** One (provider, model) pair of the run and how its trials reach it. */
export interface PreflightTarget {
  provider: string;
  model: string;
  /** The trial options its trials get (upstream, price), without budgets or recording. */
  options: TrialOptions;
  /** How to fix a refused key, e.g. "set OPENROUTER_API_KEY to a valid key". */
  keyFix: string;
}

export interface PreflightResult {
  provider: string;
  model: string;
  /** HTTP status of the last answer (0: none). */
  status: number;
  /** How the provider refused, when it did. */
  refusal?: Refusal;
  /** No answer at all: unreachable, or silent past the preflight's limit. */
  failure?: string;
  message: string;
}

export const PREFLIGHT_TIMEOUT_MS = 30_000;
const ATTEMPTS = 3;
const PROMPT = 'Reply with OK.';

/** The smallest request of each wire format: a path after the version segment and a body. */
export function preflightRequest(
  kind: ProviderKind,
  model: string,
): { path: string; body: object; headers: Record<string, string> } {
  switch (kind) {
    case 'anthropic':
      return {
        path: 'messages',
        body: { model, max_tokens: 16, messages: [{ role: 'user', content: PROMPT }] },
        headers: { 'anthropic-version': '2023-06-01' },
      };
    case 'google':
      return {
        path: `models/${encodeURIComponent(model)}:generateContent`,
        body: {
          contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
          generationConfig: { maxOutputTokens: 16 },
        },
        headers: {},
      };
    case 'openai-responses':
      return {
        path: 'responses',
        body: { model, input: PROMPT, max_output_tokens: 16 },
        headers: {},
      };
    default:
      return {
        path: 'chat/completions',
        body: { model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 },
        headers: {},
      };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request through a proxy route of its own; what came back, read in the kind's format. */
async function attempt(
  proxy: ProviderProxy,
  t: PreflightTarget,
  timeoutMs: number,
): Promise<PreflightResult & { retryAfterMs?: number }> {
  const trial = proxy.openTrial({ ...t.options, provider: t.provider, model: t.model });
  const req = preflightRequest(trial.kind, t.model);
  const [name, value] = keyHeader(KINDS[trial.kind].auth, trial.apiKey);
  const base = { provider: t.provider, model: t.model };
  try {
    const res = await fetch(`${trial.baseUrl}/${req.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [name]: value, ...req.headers },
      body: JSON.stringify(req.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status < 400) return { ...base, status: res.status, message: 'answered' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const err = errorOf(parsed) ?? { message: text.slice(0, 300) };
    const refusal = refusalOf(res.status, classifyError(res.status, err.message, err.code));
    const after = Number(res.headers.get('retry-after'));
    return {
      ...base,
      status: res.status,
      message: err.message.slice(0, 300),
      ...(refusal && { refusal }),
      ...(Number.isFinite(after) && after >= 0 && { retryAfterMs: after * 1000 }),
    };
  } catch (e) {
    const upstream = trial.finish().details.upstream_failure;
    const why =
      upstream?.message ??
      ((e as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000}s`
        : (e as Error).message);
    return { ...base, status: 0, failure: why, message: why };
  } finally {
    trial.finish();
  }
}

/**
 * Checks one pair: a definite refusal at once; a rate limit or a server error is tried again
 * (twice, honouring a short retry-after), as the agent itself would.
 */
export async function preflightOne(
  proxy: ProviderProxy,
  t: PreflightTarget,
  timeoutMs = PREFLIGHT_TIMEOUT_MS,
): Promise<PreflightResult> {
  let r = await attempt(proxy, t, timeoutMs);
  for (let i = 1; i < ATTEMPTS && transient(r); i++) {
    await sleep(Math.min(r.retryAfterMs ?? 1000, 5000));
    r = await attempt(proxy, t, timeoutMs);
  }
  const { retryAfterMs: _ignored, ...result } = r;
  return result;
}

const transient = (r: PreflightResult) =>
  r.refusal === 'rate_limited' || r.refusal === 'server_error';

/** A refusal that every trial of the pair would meet: the run cannot measure anything. */
export const stopsTheRun = (r: PreflightResult): boolean =>
  r.refusal === 'auth' || r.refusal === 'billing' || r.refusal === 'model_not_found';

const FIX: Record<Refusal, (t: PreflightTarget) => string> = {
  auth: (t) => t.keyFix,
  billing: () => "add credit or raise the quota of the provider's account, or use another key",
  model_not_found: (t) =>
    `check the model name "${t.model}" (--model) against the models provider "${t.provider}" serves`,
  rate_limited: () =>
    'trials that hit the limit are stored as provider/rate_limited; re-run them later with `nanobench run --resume RUN --retry-errors`',
  server_error: () =>
    'trials that hit it are stored as provider/server_error; re-run them later with `nanobench run --resume RUN --retry-errors`',
};

/** "provider "x", model "y": HTTP 401 (provider/auth): <message>; fix: ..." */
export function describePreflight(r: PreflightResult, t: PreflightTarget): string {
  const who = `provider "${r.provider}", model "${r.model}"`;
  if (!r.refusal)
    return `${who}: no answer (${r.message}); trials that meet it are stored as provider errors, re-run them later with \`nanobench run --resume RUN --retry-errors\``;
  const said = r.message.replace(/[.\s]+$/, '');
  return `${who}: HTTP ${r.status} (provider/${r.refusal}: ${REFUSAL_TEXT[r.refusal]}): ${said}; fix: ${FIX[r.refusal](t)}`;
}
