// Choosing the sandbox for a run: `bwrap` must work or the run does not start; `auto` takes
// bwrap when a real sandboxed command succeeds on this machine, else (not for an LLM agent, unless
// its models are scripted: the demo) what `none` gives. `none` is `none-as-nobody` when we are
// root and it works here, else plain none; both warn in one line, which names why and what the
// agents can still reach.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../util/errors.js';
import { run } from '../../util/process.js';
import { which } from '../../util/which.js';
import { type BwrapOptions, bwrapDriver } from './bwrap.js';
import { detectContainment } from './contain.js';
import { containerDriver } from './container.js';
import { type EngineName, engineProblem, findEngine } from './engine.js';
import { findPrlimit } from './limits.js';
import { NOBODY_WARNING, nobodyDriver } from './nobody.js';
import { NONE_WARNING, noneDriver } from './none.js';
import { SANDBOXES, type SandboxDriver, type SandboxMode } from './types.js';

export { NOBODY_WARNING } from './nobody.js';
export { NONE_WARNING } from './none.js';
export type { SandboxDriver, SandboxKind, SandboxMode } from './types.js';
export { SANDBOX_MODES, sandboxHelp } from './types.js';

/** Runs `sh -c 'echo ok'` through a real session; resolves to why it failed, or undefined. */
export async function probe(driver: SandboxDriver): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'nb-probe-'));
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(ws);
  mkdirSync(home);
  const session = await driver.open({ workspace: ws, home, tag: randomUUID() });
  try {
    const w = session.wrap('/bin/sh', ['-c', 'echo ok']);
    const r = await run(w.command, w.args, { cwd: ws, timeoutMs: 20_000 });
    if (r.exitCode === 0 && r.stdout.trim() === 'ok') return undefined;
    return (r.stderr.trim() || `exit ${r.exitCode}`).split('\n')[0];
  } catch (e) {
    return (e as Error).message;
  } finally {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SelectOptions extends Omit<BwrapOptions, 'bwrapPath' | 'prlimitPath'> {
  /** Where the warning for `none` goes (stderr of the CLI). */
  warn?: (line: string) => void;
  /**
   * The agent talks to a model (Nanocoder): `auto` never falls back to no sandbox for it, the
   * user has to ask for `--sandbox none`. Control (oracle, nop) and command agents may fall back.
   */
  llmAgent?: boolean;
  /**
   * Every model of the run is scripted (the demo): a fixed list of replies, nothing a model
   * chooses, so `auto` falls back for the LLM agent too, with the strongest isolation left.
   */
  scriptedModels?: boolean;
  /** Container sandboxes: the image of tasks that declare no environment. */
  image?: string;
  /** Container sandboxes: build arguments of every environment build. */
  buildArgs?: string[];
}

/** `--sandbox podman|docker`: the engine must be installed and answer, or the run does not start. */
async function containerSandbox(name: EngineName, o: SelectOptions): Promise<SandboxDriver> {
  const engine = findEngine(name);
  if (!engine)
    throw new UserError(
      'NO_SANDBOX',
      `--sandbox ${name}: ${name} is not installed (${SANDBOXES[name].needs})`,
    );
  const problem = await engineProblem(engine);
  if (problem) throw new UserError('NO_SANDBOX', `--sandbox ${name}: ${problem}`);
  return {
    ...containerDriver({ engine }),
    container: { engine, defaultImage: o.image, buildArgs: o.buildArgs ?? [] },
  };
}

/**
 * No bwrap: as root, `none-as-nobody` when it works here, else plain `none`; the warning says
 * which and why. `why` prefixes the warning and the note (auto's reason for falling back).
 */
async function withoutBwrap(o: SelectOptions, why?: string): Promise<SandboxDriver> {
  const scripted =
    o.llmAgent && o.scriptedModels ? ', and the models are scripted (fixed replies)' : '';
  const prefix = why ? `--sandbox auto: bwrap unusable (${why})${scripted}; ` : '';
  const note = why ? `auto: bwrap unusable (${why})${scripted}` : 'requested with --sandbox none';
  let notNobody: string | undefined;
  if (process.getuid?.() === 0) {
    try {
      const driver = nobodyDriver({ ...o, prlimitPath: findPrlimit() });
      notNobody = await probe(driver);
      if (!notNobody) {
        o.warn?.(`WARNING: ${prefix}${NOBODY_WARNING}`);
        return { ...driver, note };
      }
    } catch (e) {
      notNobody = (e as Error).message;
    }
  }
  const c = detectContainment();
  const weaker = [
    notNobody && `running as root, yet agents cannot run as nobody here (${notNobody})`,
    c.containment !== 'pid-namespace' &&
      `agents' processes ${c.containment === 'pdeathsig' ? 'die with NanoBench but their children may not' : 'may outlive NanoBench'} (${c.why}); killRunLeftovers finds them by NANOBENCH_RUN_ID`,
  ].filter(Boolean);
  o.warn?.(`WARNING: ${prefix}${NONE_WARNING}${weaker.map((w) => `; ${w}`).join('')}`);
  return noneDriver([note, ...weaker].join('; '), c);
}

export async function selectSandbox(mode: SandboxMode, o: SelectOptions): Promise<SandboxDriver> {
  if (mode === 'podman' || mode === 'docker') return containerSandbox(mode, o);
  if (mode === 'none') return withoutBwrap(o);
  const bwrapPath = which('bwrap');
  let why: string | undefined = 'bwrap (bubblewrap) is not installed';
  let driver: SandboxDriver | undefined;
  if (bwrapPath) {
    driver = bwrapDriver({ ...o, bwrapPath, prlimitPath: findPrlimit() });
    why = await probe(driver);
  }
  if (driver && !why) return driver;
  if (mode === 'bwrap')
    throw new UserError(
      'NO_SANDBOX',
      `--sandbox bwrap: ${why}; ${SANDBOXES.bwrap.needs}, or pass --sandbox none`,
    );
  if (o.llmAgent && !o.scriptedModels)
    throw new UserError(
      'NO_SANDBOX',
      `--sandbox auto: bwrap unusable (${why}); an LLM agent does not run without a sandbox unless asked: fix bwrap or pass --sandbox none explicitly`,
    );
  return withoutBwrap(o, why);
}
