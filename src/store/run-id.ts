// Run ids: sortable by creation time (UTC, to the second), unique by a random suffix.
import { randomBytes } from 'node:crypto';

export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
