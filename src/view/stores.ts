// The databases one viewer serves (`nanobench view --db A --db B`), each opened read-only and
// named by its file name (its path as given when two share a name). The first is the primary
// one: its runs keep their plain ids in URLs, so links into a one-database viewer never change;
// a run of another database is addressed as NAME:RUNID, the same form `compare` and
// `ci comment` take (main.sqlite:latest), so their links into the viewer work across databases.
import { basename, resolve } from 'node:path';
import type { RunRecord } from '../store/store.js';
import { Store } from '../store/store.js';
import { RunCache } from './data.js';

export interface ViewStore {
  /** How pages and URLs name it: the file name, or the path when two share a file name. */
  name: string;
  store: Store;
  cache: RunCache;
}

export interface ResolvedRun {
  db: ViewStore;
  run: RunRecord;
  /** The id as URLs carry it: plain in the primary database, NAME:RUNID in another. */
  ref: string;
}

export class ViewStores {
  readonly all: ViewStore[];

  constructor(stores: { name?: string; store: Store }[], cutoffs?: string) {
    if (!stores.length) throw new Error('ViewStores: no database');
    const names = stores.map((s) => s.name ?? basename(s.store.path));
    this.all = stores.map((s, i) => ({
      // Two files of one name (runs/a/results.sqlite, runs/b/results.sqlite): their paths.
      name: names.filter((n) => n === names[i]).length > 1 ? s.store.path : names[i],
      store: s.store,
      cache: new RunCache(s.store, cutoffs),
    }));
  }

  /** Opens each database read-only; a second path naming the same file is opened once. */
  static open(paths: string[], cutoffs?: string): ViewStores {
    const unique = [...new Map(paths.map((p) => [resolve(p), p])).values()];
    const opened: Store[] = [];
    try {
      for (const p of unique) opened.push(Store.open(p, { readonly: true }));
    } catch (e) {
      for (const s of opened) s.close();
      throw e;
    }
    return new ViewStores(
      opened.map((store) => ({ store })),
      cutoffs,
    );
  }

  get primary(): ViewStore {
    return this.all[0];
  }

  get many(): boolean {
    return this.all.length > 1;
  }

  /** "RUNID" or "NAME:RUNID" as URLs carry the run of `db`. */
  refOf(db: ViewStore, runId: string): string {
    return db === this.primary ? runId : `${db.name}:${runId}`;
  }

  byName(name: string): ViewStore | undefined {
    return this.all.find((s) => s.name === name || s.store.path === name);
  }

  /**
   * A run from "RUNID", "latest", "NAME:RUNID" or "NAME:latest". A plain id is looked up in the
   * primary database, then in the others in order (ids are unique by their random suffix).
   */
  resolve(ref: string): ResolvedRun | undefined {
    const i = ref.lastIndexOf(':');
    const named = i > 0 ? this.byName(ref.slice(0, i)) : undefined;
    if (i > 0 && !named) return undefined;
    const id = named ? ref.slice(i + 1) : ref;
    for (const db of named ? [named] : this.all) {
      const run = id === 'latest' ? db.store.latestRun() : db.store.getRun(id);
      if (run) return { db, run, ref: this.refOf(db, run.id) };
    }
    return undefined;
  }

  /** "a.sqlite" or "a.sqlite, b.sqlite": where a page's runs come from. */
  describe(): string {
    return this.all.map((s) => s.store.path).join(', ');
  }

  close(): void {
    for (const s of this.all) s.store.close();
  }
}
