// URLs with their password replaced, so a run's stored configuration never holds one (a Redis
// queue URL, say).
export const REDACTED = '***';

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
