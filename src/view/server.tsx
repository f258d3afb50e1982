// `nanobench view`'s web server (Hono on Node's http): read-only pages over a results store
// opened read-only, everything served from here (no CDN, no network from the page), one URL per
// page. Routes are thin: data.ts reads, pages/ render.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { type LeaderboardResult, leaderboardOf } from '../report/leaderboard-input.js';
import type { RunRecord, Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import {
  artifactPath,
  artifactsDir,
  comparePage,
  parseFilters,
  progressKey,
  runPage,
  runRows,
  trialPage,
} from './data.js';
import { ComparePageView } from './pages/compare.js';
import { ErrorPage } from './pages/error.js';
import { page } from './pages/layout.js';
import { LeaderboardPage } from './pages/leaderboard.js';
import { RunPageView } from './pages/run.js';
import { RunsPage } from './pages/runs.js';
import { TrialPageView } from './pages/trial.js';
import { type ResolvedRun, ViewStores } from './stores.js';
import { STYLE } from './style.js';

export interface ViewAppOptions {
  /** Per-model knowledge cutoffs for the contamination marks, as `report --cutoffs`. */
  cutoffs?: string;
  /** How often a live page's event stream looks for new trials. */
  pollMs?: number;
  /**
   * Host names the pages answer to (any port). A page over local files must not answer a
   * browser that reached it through another name (DNS rebinding); undefined: any.
   */
  allowedHosts?: string[];
  /** Where a failed request is reported (the page shows a 500, the server keeps serving). */
  log?: (line: string) => void;
}

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** 127.0.0.0/8, ::1 and localhost: the addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The built client script (tsc compiles src/view/client/), without its source-map comment. */
function clientScript(): string {
  const file = join(PACKAGE_ROOT, 'dist', 'view', 'client', 'client.js');
  return readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, '\n');
}

/** A page's run under the id its URLs carry (NAME:RUNID outside the first database). */
const asRef = (r: ResolvedRun): RunRecord => ({ ...r.run, id: r.ref });

export function viewApp(stores: Store | ViewStores, opts: ViewAppOptions = {}) {
  const app = new Hono();
  const dbs =
    stores instanceof ViewStores ? stores : new ViewStores([{ store: stores }], opts.cutoffs);
  const where = dbs.describe();
  const pollMs = opts.pollMs ?? 1000;
  const stopping = { value: false };
  let script: string | undefined;

  const html = (c: Context, node: unknown, status: 200 | 400 | 404 | 500 = 200) => {
    c.header('Content-Security-Policy', PAGE_CSP);
    return c.html(page(node), status);
  };
  const notFound = (c: Context, message: string) =>
    html(c, <ErrorPage status={404} message={message} />, 404);

  app.use('*', async (c, next) => {
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    if (opts.allowedHosts) {
      // The request's URL carries the Host header's name (node-server builds it from that).
      const host = new URL(c.req.url).hostname;
      if (!opts.allowedHosts.includes(host))
        return c.text(`this viewer answers to ${opts.allowedHosts.join(', ')} only\n`, 421);
    }
    // Read-only: nothing here changes anything, so nothing accepts a body.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      c.header('Allow', 'GET, HEAD');
      return c.text('the viewer is read-only\n', 405);
    }
    await next();
  });

  app.get('/assets/style.css', (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    return c.body(STYLE);
  });
  app.get('/assets/client.js', (c) => {
    script ??= clientScript();
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(script);
  });

  app.get('/', (c) => {
    // Newest first over every database; with several, each row names its database.
    const rows = dbs.all
      .flatMap((db) =>
        runRows(db.store).map((r) => ({
          ...r,
          ref: dbs.refOf(db, r.run.id),
          ...(dbs.many && { db: db.name }),
        })),
      )
      // Stable: a database's own order (newest first) holds between runs of one second.
      .sort((a, b) =>
        a.run.created_at < b.run.created_at ? 1 : a.run.created_at > b.run.created_at ? -1 : 0,
      );
    return html(c, <RunsPage rows={rows} db={where} />);
  });

  app.get('/leaderboard', (c) => {
    let r: LeaderboardResult;
    try {
      r = leaderboardOf(
        dbs.all.map((db) => ({ db: db.name, store: db.store })),
        {
          dataset: c.req.query('dataset') || undefined,
          mode: c.req.query('mode') || undefined,
        },
      );
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      return html(c, <ErrorPage status={400} message={e.message} />, 400);
    }
    const refOf = (db: string, runId: string) => {
      const d = dbs.byName(db);
      return d ? dbs.refOf(d, runId) : runId;
    };
    return html(
      c,
      <LeaderboardPage b={r.board} datasets={r.datasets} notes={r.notes} refOf={refOf} />,
    );
  });

  app.get('/runs/:run', (c) => {
    const r = dbs.resolve(c.req.param('run'));
    const p = r && runPage(r.db.store, r.db.cache, r.run.id, parseFilters(c.req.query()));
    return p && r
      ? html(c, <RunPageView p={{ ...p, run: asRef(r) }} />)
      : notFound(c, `No run "${c.req.param('run')}" in ${where}.`);
  });

  app.get('/runs/:run/events', (c) => {
    const r = dbs.resolve(c.req.param('run'));
    if (!r) return notFound(c, `No run "${c.req.param('run')}" in ${where}.`);
    const [store, id] = [r.db.store, r.run.id];
    return streamSSE(c, async (stream) => {
      let aborted = false;
      stream.onAbort(() => {
        aborted = true;
      });
      // Only changes after what the page was rendered with (it says so in ?since=).
      let last = c.req.query('since') ?? '';
      while (!aborted && !stopping.value) {
        const p = store.runProgress(id);
        const key = progressKey(p);
        if (p.status !== 'running') {
          await stream.writeSSE({ event: 'end', data: JSON.stringify(p) });
          return;
        }
        if (key !== last) await stream.writeSSE({ event: 'progress', data: JSON.stringify(p) });
        last = key;
        await stream.sleep(pollMs);
      }
    });
  });

  app.get('/runs/:run/trials/:trial', (c) => {
    const { run, trial } = c.req.param();
    const r = dbs.resolve(run);
    const p =
      r && /^\d{1,15}$/.test(trial)
        ? trialPage(r.db.store, r.db.cache, r.run.id, Number(trial), parseFilters(c.req.query()))
        : null;
    if (!p || !r)
      return notFound(
        c,
        r ? `Run ${run} has no trial "${trial}".` : `No run "${run}" in ${where}.`,
      );
    return html(c, <TrialPageView p={{ ...p, run: asRef(r) }} />);
  });

  app.get('/runs/:run/trials/:trial/artifacts/:name', (c) => {
    const { run, trial, name } = c.req.param();
    const r = dbs.resolve(run);
    const t = r && /^\d{1,15}$/.test(trial) ? r.db.store.trial(r.run.id, Number(trial)) : undefined;
    // Only a name the directory lists: the request never builds a path.
    const file = r && t ? artifactPath(artifactsDir(r.db.store, t), name) : undefined;
    if (!file) return notFound(c, `No artifact "${name}" for trial ${trial} of run ${run}.`);
    const download = c.req.query('download') !== undefined;
    // Never rendered as a page of this origin: plain text, sandboxed.
    c.header('Content-Security-Policy', "sandbox; default-src 'none'");
    c.header('Content-Type', download ? 'application/octet-stream' : 'text/plain; charset=utf-8');
    c.header('Content-Disposition', `${download ? 'attachment' : 'inline'}; filename="${name}"`);
    return c.body(readFileSync(file));
  });

  app.get('/compare', (c) => {
    // base=DB:RUN and candidate=DB:RUN may name two databases (compare a.sqlite:latest b.sqlite:latest).
    const found = new Map<string, ResolvedRun>();
    const find = (ref: string) => {
      const x = dbs.resolve(ref);
      if (x) found.set(ref, x);
      return x && { store: x.db.store, run: x.run };
    };
    const [baseRef, candRef] = [c.req.query('base') ?? '', c.req.query('candidate') ?? ''];
    const r = comparePage(find, baseRef, candRef, c.req.query('rule') ?? 'paired');
    if (!r.ok) return html(c, <ErrorPage status={r.status} message={r.message} />, r.status);
    const [b, k] = [found.get(baseRef), found.get(candRef)];
    return html(
      c,
      <ComparePageView
        base={b ? asRef(b) : r.base}
        candidate={k ? asRef(k) : r.candidate}
        c={r.comparison}
      />,
    );
  });

  app.notFound((c) => notFound(c, `Nothing at ${c.req.path}.`));
  app.onError((e, c) => {
    const bad = e instanceof UserError;
    opts.log?.(`${c.req.method} ${c.req.path}: ${bad ? e.message : ((e as Error).stack ?? e)}`);
    return html(
      c,
      <ErrorPage
        status={500}
        message={bad ? e.message : `The viewer failed on this page: ${(e as Error).message}`}
      />,
      500,
    );
  });
  return { app, stop: () => (stopping.value = true) };
}

export interface Viewer {
  url: string;
  close(): Promise<void>;
}

export interface StartOptions extends Omit<ViewAppOptions, 'allowedHosts'> {
  /** One database, or several (the first keeps plain run ids in URLs). */
  db: string | string[];
  host: string;
  port: number;
  /** Listen on a non-loopback address (the viewer has no authentication). */
  allowRemote?: boolean;
}

export async function startViewer(o: StartOptions): Promise<Viewer> {
  if (!isLoopback(o.host) && !o.allowRemote)
    throw new UserError(
      'REMOTE_BIND',
      `--host ${o.host} is not a loopback address: the viewer has no authentication, so anyone who reaches it reads every trial; pass --allow-remote to listen there anyway`,
    );
  const store = ViewStores.open(Array.isArray(o.db) ? o.db : [o.db], o.cutoffs);
  const { app, stop } = viewApp(store, {
    ...o,
    allowedHosts: o.allowRemote ? undefined : LOOPBACK_NAMES,
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port, o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    store.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UserError(
        'PORT_IN_USE',
        `port ${o.port} on ${o.host} is in use: pass another --port (0 picks a free one)`,
      );
    throw new UserError('LISTEN', `cannot listen on ${o.host}:${o.port} (${(e as Error).message})`);
  }
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        stop();
        server.close(() => {
          store.close();
          resolve();
        });
        // Live pages hold their event streams open: end them rather than wait.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
