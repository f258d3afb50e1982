// The container drivers (`--sandbox podman`, `--sandbox docker`): every command of a session runs
// in a fresh container of the task's environment image. The container sees the image, the
// workspace read-write (at its real path, or at a Harbor task's WORKDIR), HOME and the trial's
// scratch read-write, the extra read-only paths the agent needs, and nothing else of the host.
// No network but the bridged endpoints (the provider proxy, a judge's agent port), every
// capability dropped, no new privileges, the image read-only unless the task needs it writable
// (Harbor: discarded with the container), rlimits, a pids limit and the task's cpus and memory.
//
// The endpoint bridge is bwrap's (bridge.ts): a unix socket per endpoint on the host, mounted at
// /run/nanobench, and the forwarder inside listening on the endpoint's own 127.0.0.1:PORT. The
// forwarder is run by the host's node through the host's dynamic loader and libraries (mounted
// at /run/nanobench-host), so it runs whatever libc the image has.
//
// Containers do not die with their client: `podman run` hands them to conmon. So each container's
// init watches a FIFO NanoBench holds open for the session (it reads EOF when NanoBench closes it
// or dies) and then kills everything in the container; the session also removes its containers
// by label when it closes, and a resumed run removes by label what its dead executions left
// (src/run/leftovers.ts).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { InfraError } from '../../util/errors.js';
import { thisExecution } from '../../util/execution.js';
import { which } from '../../util/which.js';
import { FORWARDER_SOURCE, type HostBridge, loopbackTarget, startHostBridge } from './bridge.js';
import { tagPrefix } from './contain.js';
import { type Engine, removeLabelled, sharedLibraries } from './engine.js';
import type {
  Mount,
  SandboxDriver,
  SandboxSession,
  SessionOptions,
  SessionReport,
} from './types.js';

export const RUN_DIR = '/run/nanobench';
/** The host's node and its libraries (mount points cannot be made inside the read-only RUN_DIR). */
export const HOST_DIR = '/run/nanobench-host';
export const LABEL_TAG = 'nanobench.tag';
export const LABEL_RUN = 'nanobench.run';
/** Which NanoBench process started the container (src/util/execution.ts). */
export const LABEL_EXECUTION = 'nanobench.execution';
/** Processes per container (cgroup pids controller: also holds for root, unlike RLIMIT_NPROC). */
export const PIDS_LIMIT = 1024;

/**
 * The container's pid 1: starts the watchdog, runs the command as its child with the original
 * stdin (an asynchronous command's stdin would be /dev/null), passes termination signals on (a
 * shell as pid 1 ignores them) and exits the way the command did.
 */
export const CONTAINER_INIT = [
  `(read -r _ < ${RUN_DIR}/alive; kill -KILL -1) 2>/dev/null &`,
  'exec 3<&0',
  '"$@" <&3 3<&- &',
  'pid=$!',
  'exec 3<&-',
  "trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP",
  'while :; do wait $pid; s=$?; kill -0 $pid 2>/dev/null || exit $s; done',
].join('\n');

/**
 * Runs on the host in front of the engine's CLI: the caller's environment goes into the
 * container by name (`-e NAME`: the engine reads the value from its own environment), except
 * what belongs to the host (PATH, the loader's variables and the engine's own: the image has its
 * own).
 */
export const LAUNCHER_SOURCE = `import { spawn } from 'node:child_process';
const [bin, ...rest] = process.argv.slice(2);
const at = rest.indexOf('@ENV@');
const skip = new Set(['PATH', 'PWD', 'OLDPWD', 'SHLVL', '_', 'HOSTNAME', 'TMPDIR', 'XDG_RUNTIME_DIR', 'CONTAINER_HOST', 'DOCKER_HOST']);
const names = Object.keys(process.env).filter((n) => !skip.has(n) && !n.startsWith('LD_') && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
const args = [...rest.slice(0, at), ...names.flatMap((n) => ['-e', n]), ...rest.slice(at + 1)];
const child = spawn(bin, args, { stdio: 'inherit' });
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
child.on('error', (e) => { console.error('nanobench: cannot run ' + bin + ': ' + e.message); process.exit(125); });
child.on('exit', (code, signal) => { if (signal) process.kill(process.pid, signal); else process.exit(code ?? 1); });
`;

export interface ContainerOptions {
  engine: Engine;
  /** Node that runs the launcher on the host and the forwarder inside (default: ours). */
  nodePath?: string;
}

interface RunSpec {
  engine: Engine;
  name: string;
  labels: Record<string, string>;
  image: string;
  workdir: string;
  mounts: Mount[];
  env: Record<string, string>;
  network: 'none' | 'host';
  readOnlyRoot: boolean;
  resources?: { cpus?: number; memoryMb?: number };
  /** With -i: the caller's stdin reaches the command. */
  command: string[];
}

/** `run` arguments up to the image; `@ENV@` marks where the launcher puts the -e NAME flags. */
export function runArgs(s: RunSpec): string[] {
  const a = ['run', '--rm', '-i', ...s.engine.runtimeArgs, '--name', s.name];
  for (const [k, v] of Object.entries(s.labels)) a.push('--label', `${k}=${v}`);
  a.push('--network', s.network, '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges');
  a.push(...s.engine.ulimits, '--pids-limit', String(PIDS_LIMIT));
  if (s.engine.name === 'podman') a.push('--pull', 'never');
  if (s.readOnlyRoot) a.push('--read-only');
  // Docker does not give /tmp a tmpfs with --read-only (podman does); both get one here.
  a.push('--tmpfs', '/tmp:rw,exec,mode=1777');
  if (s.resources?.cpus) a.push('--cpus', String(s.resources.cpus));
  if (s.resources?.memoryMb) a.push('--memory', `${s.resources.memoryMb}m`);
  // Docker as a non-root user runs as root inside; files in the workspace would not be ours.
  const uid = process.getuid?.() ?? 0;
  if (s.engine.name === 'docker' && uid !== 0) a.push('--user', `${uid}:${process.getgid?.()}`);
  for (const m of s.mounts) a.push('-v', `${m.source}:${m.target}${m.readOnly ? ':ro' : ''}`);
  a.push('-w', s.workdir, '@ENV@');
  for (const [k, v] of Object.entries(s.env)) a.push('-e', `${k}=${v}`);
  a.push('--entrypoint', '/bin/sh', s.image, '-c', CONTAINER_INIT, 'nb-init', ...s.command);
  return a;
}

interface HostForwarder {
  mounts: Mount[];
  /** argv prefix that runs the forwarder script inside. */
  prefix: string[];
}

/** The host's node, runnable in any image: its loader and libraries come along. */
function hostForwarder(node: string): HostForwarder {
  const { loader, libs } = sharedLibraries(node);
  const mounts: Mount[] = [{ source: node, target: `${HOST_DIR}/node`, readOnly: true }];
  if (!loader) return { mounts, prefix: [`${HOST_DIR}/node`] };
  for (const lib of [...libs, loader])
    mounts.push({ source: lib, target: `${HOST_DIR}/lib/${basename(lib)}`, readOnly: true });
  return {
    mounts,
    prefix: [
      `${HOST_DIR}/lib/${basename(loader)}`,
      '--library-path',
      `${HOST_DIR}/lib`,
      `${HOST_DIR}/node`,
    ],
  };
}

interface Bridged {
  host: string;
  port: number;
  socket: string;
  server: HostBridge;
}

class ContainerSession implements SandboxSession {
  readonly kind: 'podman' | 'docker';
  private closing?: Promise<SessionReport>;
  private readonly given = new Set<string>();
  private count = 0;
  constructor(
    readonly tag: string,
    private readonly o: ContainerOptions,
    private readonly s: SessionOptions,
    private readonly dir: string,
    private readonly aliveFd: number,
    private readonly bridges: Bridged[],
    private readonly forwarder: HostForwarder | undefined,
  ) {
    this.kind = o.engine.name;
  }

  wrap(command: string, args: string[], readOnly: string[] = []) {
    for (const p of readOnly) this.given.add(p);
    const s = this.s;
    const ws = s.workdir ?? s.workspace;
    const mounts: Mount[] = [
      { source: s.workspace, target: ws },
      { source: s.home, target: s.home },
      ...(s.writable ?? []).map((w) => ({ source: w, target: w })),
      ...readOnly.map((r) => ({ source: r, target: r, readOnly: true })),
      ...(s.mounts ?? []),
      { source: join(this.dir, 'run'), target: RUN_DIR, readOnly: true },
      ...(this.forwarder?.mounts ?? []),
    ];
    const inner = this.forwarder
      ? [
          ...this.forwarder.prefix,
          `${RUN_DIR}/bridge.mjs`,
          ...this.bridges.flatMap((b) => [b.host, String(b.port), `${RUN_DIR}/${b.socket}`]),
          '--',
          command,
          ...args,
        ]
      : [command, ...args];
    const spec: RunSpec = {
      engine: this.o.engine,
      name: `nb-${this.tag.slice(0, 8)}-${randomUUID().slice(0, 8)}-${this.count++}`,
      labels: {
        [LABEL_TAG]: this.tag,
        ...(s.runId && { [LABEL_RUN]: s.runId }),
        [LABEL_EXECUTION]: thisExecution(),
      },
      image: s.image!,
      workdir: ws,
      mounts,
      env: { HOME: s.home, TMPDIR: '/tmp', ...s.env },
      network: s.network ?? 'none',
      readOnlyRoot: !s.writableRoot,
      resources: s.resources,
      command: inner,
    };
    const node = this.o.nodePath ?? process.execPath;
    const argv = [
      ...tagPrefix(this.tag, s.runId),
      ...pdeath(),
      node,
      join(this.dir, 'launcher.mjs'),
      this.o.engine.bin,
      ...runArgs(spec),
    ];
    return { command: argv[0], args: argv.slice(1) };
  }

  close(): Promise<SessionReport> {
    this.closing ??= (async () => {
      // Closing the pipe makes every container of the session kill its processes; removing
      // them by label catches one whose client was killed before it started.
      try {
        closeSync(this.aliveFd);
      } catch {}
      await removeLabelled(this.o.engine, LABEL_TAG, this.tag);
      let connections = 0;
      for (const b of this.bridges) {
        connections += b.server.connections();
        await b.server.close();
      }
      rmSync(this.dir, { recursive: true, force: true });
      return {
        kind: this.kind,
        // The image is read-only (or discarded with its container): nothing lands on the host.
        writesOutside: [],
        endpointConnections: connections,
        limits: [...this.o.engine.ulimits.filter((u) => u !== '--ulimit'), `pids=${PIDS_LIMIT}`]
          .concat(this.s.resources?.cpus ? [`cpus=${this.s.resources.cpus}`] : [])
          .concat(this.s.resources?.memoryMb ? [`memory=${this.s.resources.memoryMb}m`] : []),
        readOnly: [...this.given],
        containment: 'container' as const,
      };
    })();
    return this.closing;
  }
}

let pdeathPrefix: string[] | undefined;
/** The engine's client dies with us (the container itself is the watchdog's). */
function pdeath(): string[] {
  if (pdeathPrefix) return pdeathPrefix;
  const setpriv = which('setpriv');
  pdeathPrefix = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : [];
  return pdeathPrefix;
}

export function containerDriver(o: ContainerOptions): SandboxDriver {
  return {
    kind: o.engine.name,
    async open(s: SessionOptions): Promise<SandboxSession> {
      if (!s.image)
        throw new InfraError(
          'sandbox',
          `--sandbox ${o.engine.name}: no environment image for this session`,
          'no_image',
        );
      const dir = mkdtempSync(join(tmpdir(), 'nb-ctr-'));
      const bridges: Bridged[] = [];
      let fd: number | undefined;
      try {
        mkdirSync(join(dir, 'run'));
        writeFileSync(join(dir, 'launcher.mjs'), LAUNCHER_SOURCE);
        execFileSync('mkfifo', [join(dir, 'run', 'alive')]);
        // O_RDWR: opening a FIFO this way never blocks, and we count as its writer until closed.
        fd = openSync(join(dir, 'run', 'alive'), constants.O_RDWR);
        const endpoints = [...(s.endpoint ? [s.endpoint] : []), ...(s.extraEndpoints ?? [])];
        for (const [i, e] of endpoints.entries()) {
          const target = loopbackTarget(e.baseUrl);
          const socket = `endpoint-${i}.sock`;
          const server = await startHostBridge(join(dir, 'run', socket), target);
          bridges.push({ ...target, socket, server });
        }
        if (bridges.length) writeFileSync(join(dir, 'run', 'bridge.mjs'), FORWARDER_SOURCE);
        const forwarder = bridges.length
          ? hostForwarder(o.nodePath ?? process.execPath)
          : undefined;
        return new ContainerSession(s.tag, o, s, dir, fd, bridges, forwarder);
      } catch (e) {
        for (const b of bridges) await b.server.close();
        if (fd !== undefined) closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
        throw e;
      }
    },
  };
}
