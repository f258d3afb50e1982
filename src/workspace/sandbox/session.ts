// One sandboxed phase of a trial: open a session, run, close it, and kill whatever outlived it.
import { killStragglers } from '../../agent/process-group.js';
import type { SandboxDriver, SandboxSession, SessionOptions, SessionReport } from './types.js';

export async function withSession<T>(
  driver: SandboxDriver,
  o: SessionOptions,
  fn: (session: SandboxSession) => Promise<T>,
): Promise<{ value: T; report: SessionReport }> {
  const session = await driver.open(o);
  try {
    const value = await fn(session);
    return { value, report: await session.close() };
  } finally {
    await session.close();
    await killStragglers(o.tag, [o.workspace, ...(o.writable ?? [])]);
  }
}
