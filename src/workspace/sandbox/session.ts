// One sandboxed phase of a trial: open a session, run, close it, and kill whatever outlived it.
import { killStragglers } from '../../util/process-group.js';
import type { SandboxDriver, SandboxSession, SessionOptions, SessionReport } from './types.js';

export async function withSession<T>(
  driver: SandboxDriver,
  o: SessionOptions,
  fn: (session: SandboxSession) => Promise<T>,
): Promise<{ value: T; report: SessionReport }> {
  const opened = await driver.open(o);
  // A session that never launched anything (the nop and oracle controls) left nothing to sweep.
  let launched = false;
  const session: SandboxSession = {
    kind: opened.kind,
    tag: opened.tag,
    wrap: (...args) => {
      launched = true;
      return opened.wrap(...args);
    },
    close: () => opened.close(),
  };
  try {
    const value = await fn(session);
    return { value, report: await opened.close() };
  } finally {
    const { containment } = await opened.close();
    // In a pid namespace nothing outlives the command that started it: the kernel kills the
    // namespace with its init. The sweep reads every process's environment and working
    // directory; two per trial on a busy machine cost more CPU than a trial's suites.
    if (launched && containment !== 'pid-namespace')
      await killStragglers(o.tag, [o.workspace, ...(o.writable ?? [])]);
  }
}
