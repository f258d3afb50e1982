// Content digests: the same value always gives the same text, hence the same digest, whatever
// the formatting of the file it came from.
import { createHash } from 'node:crypto';
import type { Task } from './schema.js';

/** JSON with object keys sorted at every depth and no whitespace: the same value, the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export const sha256 = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/** Digest of a task as loaded (defaults filled), so formatting never changes it. */
export function taskDigest(task: Task): string {
  return sha256(canonicalJson(task));
}

/**
 * Digest of what a task asks and how it is graded: the task without its governance fields
 * (status, disputes). Activating, marking saturated or recording a dispute leaves it unchanged,
 * so calibration observations and gate evidence stay attached to the task through them; any
 * other edit changes it, and the task returns to calibrating.
 */
export function contentDigest(task: Task): string {
  const { status: _status, disputes: _disputes, ...content } = task;
  return sha256(canonicalJson(content));
}
