// Benchmark: what the sandbox costs per trial. Runs the same trials through the CLI with
// --sandbox none and --sandbox bwrap (a scripted command agent and, unless --no-nanocoder, the
// real Nanocoder against a scripted model) and prints the mean agent, verifier and trial times
// from the stored records, plus the bare cost of starting one sandboxed command.
// Prints figures; asserts nothing about speed.
//   npm run bench:sandbox               (builds first)
//   node bench/sandbox.mjs [runs] [--no-nanocoder]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store } from '../dist/store/store.js';
import { selectSandbox } from '../dist/workspace/sandbox/select.js';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const NANOCODER = !process.argv.includes('--no-nanocoder');
const dir = mkdtempSync(join(tmpdir(), 'nb-bench-sandbox-'));

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

function trials(agentArgs, sandbox) {
  const db = join(dir, `${sandbox}.sqlite`);
  const args = [
    'dist/cli/main.js',
    'run',
    'examples',
    '--task',
    'textkit-001',
    '--runs',
    String(RUNS),
  ].concat(['--sandbox', sandbox, '--db', db, '--json'], agentArgs);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  const store = Store.open(db);
  try {
    return store.trials(JSON.parse(r.stdout).run_id);
  } finally {
    store.close();
  }
}

function row(label, sandbox, ts) {
  const ms = (k) =>
    mean(ts.map((t) => t.details[k]))
      .toFixed(0)
      .padStart(7);
  const total = mean(ts.map((t) => t.duration_ms))
    .toFixed(0)
    .padStart(7);
  const scores = [...new Set(ts.map((t) => t.score))].join('/');
  console.log(
    `${label.padEnd(22)} ${sandbox.padEnd(6)} ${ms('agent_ms')} ${ms('verifier_ms')} ${total}   ${scores}`,
  );
}

// Cold start of one sandboxed no-op, outside any trial.
const driver = await selectSandbox('bwrap', { protectedPaths: [ROOT] });
const ws = mkdtempSync(join(dir, 'ws-'));
const session = await driver.open({ workspace: ws, home: ws, tag: 'bench' });
const n = 20;
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  const w = session.wrap('/bin/true', []);
  spawnSync(w.command, w.args, { cwd: ws });
}
const startMs = Number(process.hrtime.bigint() - t0) / 1e6 / n;
await session.close();
console.log(`one sandboxed /bin/true (bwrap + prlimit): ${startMs.toFixed(1)} ms (mean of ${n})`);
console.log(`\n${RUNS} trials each, textkit-001; mean ms       agent verifier  trial   scores`);

const agents = [
  ['command:pass.sh', ['--agent', `command:${join(ROOT, 'test/fixtures/agents/pass.sh')}`]],
];
if (NANOCODER)
  agents.push(['nanocoder competent', ['--agent', 'nanocoder', '--model', 'competent']]);
for (const [label, args] of agents)
  for (const sandbox of ['none', 'bwrap']) row(label, sandbox, trials(args, sandbox));
rmSync(dir, { recursive: true, force: true });
