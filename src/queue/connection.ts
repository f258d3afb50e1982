// Redis connection settings shared by coordinator and worker, and URL redaction (a run's stored
// configuration never holds a password).
export const REDACTED = '***';

export function connectionFor(url: string) {
  // maxRetriesPerRequest: null is what BullMQ workers require (blocking commands).
  return { url, maxRetriesPerRequest: null };
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = REDACTED;
    return u.toString();
  } catch {
    return url;
  }
}

export function isRedacted(url: string): boolean {
  try {
    return new URL(url).password === REDACTED || new URL(url).password === '%2A%2A%2A';
  } catch {
    return false;
  }
}

export const CONNECT_TIMEOUT_MS = 10_000;
