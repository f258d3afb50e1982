// Cassettes: every request/response of one trial as JSON lines, written as the trial runs (a
// crash keeps what happened so far) and read back to replay the trial without any provider.
// Line 1 is the header that says which trial it belongs to; then one line per agent request.
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../util/errors.js';
import { DEFAULT_KIND, KINDS, type ProviderKind } from './kinds.js';
import type { SentTemperature, Usage } from './usage.js';

export const CASSETTE_TYPE = 'nanobench-cassette';

export interface CassetteHeader {
  type: typeof CASSETTE_TYPE;
  version: 1;
  task_id: string;
  mode: string;
  attempt: number;
  provider: string;
  model: string;
  trial_key: string;
  recorded_at: string;
  /** Upstream origin and path (never credentials or a query string); "replay" when replayed. */
  upstream: string;
  /** The wire format recorded (src/provider/kinds.ts); absent in older cassettes: openai-compatible. */
  kind?: ProviderKind;
}

export interface RecordedResponse {
  /** 0 when no HTTP response came (connection failed or dropped). */
  status: number;
  headers?: Record<string, string>;
  /** The raw reply: JSON text or the SSE stream as received. */
  body?: string;
  error?: string;
}

export interface Exchange {
  type: 'exchange';
  index: number;
  /** upstream: forwarded; budget: refused by a budget; replay: served from a cassette. */
  source: 'upstream' | 'budget' | 'replay';
  /**
   * The request as the agent sent it (the proxy's changes are listed in `sent`). On disk it is
   * stored as a delta against the previous request (see compactRequest); loadCassette expands it.
   */
  request: unknown;
  /** The request's path after /v1/ (and query), when the kind has more than one (Gemini). */
  path?: string;
  sent?: { temperature: SentTemperature; stream_options: boolean; upstream_attempts: number };
  response: RecordedResponse;
  usage?: Usage;
  ttfb_ms?: number;
  total_ms: number;
  /** When the request went upstream (ISO), after any wait for a request slot of its provider. */
  sent_at?: string;
  /** How long it waited at the proxy for that slot (absent: it did not wait). */
  queued_ms?: number;
}

type Body = Record<string, unknown>;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The conversation only grows, so each request repeats the previous one. On disk a request keeps
 * only the items of its conversation (`messages`, Gemini's `contents`, the Responses API's
 * `input`) after the prefix it shares with the previous one (`messages_prefix`) and drops `tools`
 * when unchanged (`tools_unchanged`): cassettes grow linearly, not quadratically.
 */
export function compactRequest(prev: Body | undefined, body: Body, key = 'messages'): Body {
  if (!prev) return body;
  const out: Body = { ...body };
  const pm = Array.isArray(prev[key]) ? (prev[key] as unknown[]) : [];
  const bm = Array.isArray(body[key]) ? (body[key] as unknown[]) : undefined;
  if (bm) {
    let k = 0;
    while (k < pm.length && k < bm.length && same(pm[k], bm[k])) k++;
    if (k > 0) Object.assign(out, { messages_prefix: k, [key]: bm.slice(k) });
  }
  if ('tools' in body && same(prev.tools, body.tools)) {
    delete out.tools;
    out.tools_unchanged = true;
  }
  return out;
}

export function expandRequest(prev: Body | undefined, stored: Body, key = 'messages'): Body {
  const { messages_prefix: k, tools_unchanged: toolsSame, ...out } = stored;
  if (typeof k === 'number' && Array.isArray(out[key])) {
    const pm = Array.isArray(prev?.[key]) ? (prev[key] as unknown[]) : [];
    out[key] = [...pm.slice(0, k), ...(out[key] as unknown[])];
  }
  if (toolsSame) out.tools = prev?.tools;
  return out;
}

/** The kind a cassette was recorded in. */
export const kindOf = (h: Pick<CassetteHeader, 'kind'>): ProviderKind => h.kind ?? DEFAULT_KIND;

/** Which trial a cassette replays: task, mode, attempt and model (the provider is a label). */
export function cassetteKey(h: Pick<CassetteHeader, 'task_id' | 'mode' | 'attempt' | 'model'>) {
  return [h.task_id, h.mode, h.attempt, h.model].join('|');
}

export class CassetteWriter {
  constructor(
    readonly file: string,
    header: CassetteHeader,
    /** Applied to every line: removes the API key should an upstream ever echo it. */
    private readonly redact: (s: string) => string,
  ) {
    this.key = KINDS[kindOf(header)].history;
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${redact(JSON.stringify(header))}\n`, { flag: 'w' });
  }

  private prev?: Body;
  private readonly key: string;

  append(ex: Exchange): void {
    const body = ex.request as Body;
    const request =
      body && typeof body === 'object' ? compactRequest(this.prev, body, this.key) : body;
    if (body && typeof body === 'object') this.prev = body;
    appendFileSync(this.file, `${this.redact(JSON.stringify({ ...ex, request }))}\n`);
  }
}

/** The header of a cassette file, or undefined when the file is not one. */
export function readCassetteHeader(file: string): CassetteHeader | undefined {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').split('\n')[0];
    const h = JSON.parse(first);
    return h?.type === CASSETTE_TYPE ? (h as CassetteHeader) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export function loadCassette(file: string): { header: CassetteHeader; exchanges: Exchange[] } {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const parse = (l: string, i: number) => {
    try {
      return JSON.parse(l);
    } catch {
      throw new UserError('BAD_CASSETTE', `${file}: line ${i + 1} is not JSON`);
    }
  };
  const [header, ...rest] = lines.map(parse);
  if (header?.type !== CASSETTE_TYPE)
    throw new UserError('BAD_CASSETTE', `${file}: not a NanoBench cassette`);
  const exchanges = rest.filter((e: Exchange) => e.type === 'exchange');
  if (header.kind !== undefined && !(header.kind in KINDS))
    throw new UserError('BAD_CASSETTE', `${file}: unknown provider kind "${header.kind}"`);
  const key = KINDS[kindOf(header)].history;
  let prev: Body | undefined;
  exchanges.forEach((e: Exchange, i: number) => {
    if (e.index !== i)
      throw new UserError('BAD_CASSETTE', `${file}: exchange ${i} is numbered ${e.index}`);
    if (e.request && typeof e.request === 'object') {
      e.request = expandRequest(prev, e.request as Body, key);
      prev = e.request as Body;
    }
  });
  return { header, exchanges };
}

function* jsonlFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* jsonlFiles(p);
    else if (e.isFile() && e.name.endsWith('.jsonl')) yield p;
  }
}

/** Every cassette under dir by trial key; when a trial was recorded twice, the latest wins. */
export function indexCassettes(dir: string): Map<string, { file: string; header: CassetteHeader }> {
  let files: string[];
  try {
    files = [...jsonlFiles(dir)];
  } catch (e) {
    throw new UserError('BAD_REPLAY', `--replay ${dir}: ${(e as Error).message}`);
  }
  const index = new Map<string, { file: string; header: CassetteHeader }>();
  for (const file of files) {
    const header = readCassetteHeader(file);
    if (!header) continue;
    const key = cassetteKey(header);
    const prev = index.get(key);
    if (!prev || prev.header.recorded_at < header.recorded_at) index.set(key, { file, header });
  }
  return index;
}
