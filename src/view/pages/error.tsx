// Not found, bad request: a page, with the status, never a crash.
import type { FC } from 'hono/jsx';
import { Layout } from './layout.js';

const TITLES: Record<number, string> = { 400: 'Bad request', 404: 'Not found' };

export const ErrorPage: FC<{ status: number; message: string }> = ({ status, message }) => (
  <Layout
    kind="error"
    title={TITLES[status] ?? 'The viewer failed'}
    crumbs={[{ href: '/', text: 'Runs' }]}
  >
    <h1>{TITLES[status] ?? 'The viewer failed'}</h1>
    <p class="error-note" id="error-message">
      {message}
    </p>
    <p>
      <a href="/">All runs</a>
    </p>
  </Layout>
);
