// Is Redis there? Asked once, before BullMQ connects: BullMQ's own clients retry forever, and
// closing one that never connected trips an unhandled error inside it. This client gives up at
// the first failure, so a wrong URL is one clear line, fast.
import { Redis } from 'ioredis';
import { UserError } from '../util/errors.js';
import { CONNECT_TIMEOUT_MS, redactUrl } from './connection.js';

export async function probeRedis(url: string): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The rejection says only "Connection is closed."; the error event says why.
  let cause = '';
  client.on('error', (e) => {
    cause ||= e.message;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    throw new UserError(
      'QUEUE_UNREACHABLE',
      `--queue ${redactUrl(url)}: cannot reach Redis (${cause || (e as Error).message})`,
    );
  } finally {
    client.disconnect();
  }
}
