// Is Redis there? Asked once, before BullMQ connects: BullMQ's own clients retry forever, and
// closing one that never connected trips an unhandled error inside it. This client gives up at
// the first failure, so a wrong URL is one clear line, fast. The whole question has a deadline:
// something that accepts the connection and never answers (a wrong port, a proxy without its
// backend, a stopped process) would otherwise keep both `run --queue` and `worker` silent forever.
import { Redis } from 'ioredis';
import { UserError } from '../util/errors.js';
import { redactUrl } from './connection.js';

/** The probe's deadline, connection included: a Redis answers in milliseconds. */
export const PROBE_TIMEOUT_MS = 4_000;

export async function probeRedis(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The rejection says only "Connection is closed."; the error event says why.
  let cause = '';
  client.on('error', (e) => {
    cause ||= e.message;
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const asked = (async () => {
    await client.connect();
    await client.ping();
  })();
  asked.catch(() => {}); // after the deadline its rejection is nobody's to handle
  try {
    if ((await Promise.race([asked, late])) === 'late')
      throw new UserError(
        'QUEUE_SILENT',
        `--queue ${redactUrl(url)}: no answer from Redis within ${timeoutMs / 1000} s (${cause || 'the connection was accepted but nothing came back'}); check that the URL names a Redis server that is up`,
      );
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(
      'QUEUE_UNREACHABLE',
      `--queue ${redactUrl(url)}: cannot reach Redis (${cause || (e as Error).message})`,
    );
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
