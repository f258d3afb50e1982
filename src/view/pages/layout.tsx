// The frame every page shares: a header with where you are, the stylesheet and the one script
// (keyboard navigation, live updates), both served by the viewer itself.
import type { Child, FC } from 'hono/jsx';

export interface Crumb {
  href?: string;
  text: string;
}

export const Layout: FC<{
  title: string;
  crumbs?: Crumb[];
  /** The run's event stream, when the page should follow a run in progress. */
  live?: string;
  /** What the keys do depends on it (src/view/client/client.ts). */
  kind?: 'runs' | 'run' | 'trial' | 'compare' | 'error';
  children?: Child;
}> = ({ title, crumbs = [], live, kind, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · NanoBench</title>
      {/* No icon: otherwise every page asks for /favicon.ico and logs a 404. */}
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href="/assets/style.css" />
      <script type="module" src="/assets/client.js" />
    </head>
    <body data-live-src={live} data-page={kind}>
      <header class="top">
        <a class="brand" href="/">
          NanoBench
        </a>
        <nav class="crumbs" aria-label="breadcrumbs">
          {crumbs.map((c) => (c.href ? <a href={c.href}>{c.text}</a> : <span>{c.text}</span>))}
        </nav>
        <span class="keys-hint">
          press <kbd>?</kbd> for keys
        </span>
      </header>
      <main>{children}</main>
      <dialog id="keys">
        <h3>Keys</h3>
        <dl class="kv">
          <dt>
            <kbd>j</kbd> / <kbd>k</kbd>
          </dt>
          <dd>next / previous trial (on a trial page); move through the list (on a run page)</dd>
          <dt>
            <kbd>→</kbd> / <kbd>←</kbd>
          </dt>
          <dd>next / previous trial</dd>
          <dt>
            <kbd>Enter</kbd>
          </dt>
          <dd>open the selected trial</dd>
          <dt>
            <kbd>u</kbd>
          </dt>
          <dd>up: from a trial to its run, from a run to the runs</dd>
          <dt>
            <kbd>/</kbd>
          </dt>
          <dd>the filters</dd>
          <dt>
            <kbd>?</kbd>
          </dt>
          <dd>this help (Esc closes it)</dd>
        </dl>
      </dialog>
      <footer>NanoBench viewer · read-only · nothing on this page loads from the network</footer>
    </body>
  </html>
);

/** A whole document: hono/jsx renders elements, the doctype is ours. */
export const page = (node: unknown) => `<!doctype html>\n${String(node)}`;
