// Placeholders for the fields only a curator can fill (problem statement, tier, domain...).
// `task import` and `task new` write them; every task loader rejects them, naming the field,
// so an unfinished task can never be run or admitted by accident.

export const PLACEHOLDER_PREFIX = 'TODO(curator)';

export function placeholder(hint: string): string {
  return `${PLACEHOLDER_PREFIX}: ${hint}`;
}

export interface FoundPlaceholder {
  /** Dotted path of the field, e.g. "test_suites.0.command". */
  path: string;
  text: string;
}

/** Every string value (at any depth) that is still a placeholder. */
export function findPlaceholders(value: unknown, path: string[] = []): FoundPlaceholder[] {
  if (typeof value === 'string')
    return value.startsWith(PLACEHOLDER_PREFIX) ? [{ path: path.join('.'), text: value }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => findPlaceholders(v, [...path, `${i}`]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => findPlaceholders(v, [...path, k]));
  return [];
}
