// Redis connection settings shared by coordinator and worker.
export function connectionFor(url: string) {
  // maxRetriesPerRequest: null is what BullMQ workers require (blocking commands).
  return { url, maxRetriesPerRequest: null };
}

export { isRedacted, REDACTED, redactUrl } from '../util/redact-url.js';
