// Secrets out of everything NanoBench prints, stores or forwards: upstream error bodies sometimes
// echo the key or token they were sent (a provider's 401, GitHub's error for a bad token). One
// helper for the provider proxy and `ci comment`.

export const REDACTED_SECRET = '[REDACTED]';

/** Redacts every occurrence of the given secrets (shorter than 4 characters: left alone). */
export function redactor(secrets: (string | undefined)[]): (s: string) => string {
  const list = secrets.filter((s): s is string => Boolean(s && s.length >= 4));
  return (s) => list.reduce((acc, k) => acc.split(k).join(REDACTED_SECRET), s);
}
