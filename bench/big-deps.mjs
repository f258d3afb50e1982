// A large, deterministic dependency tree for benchmarks (bench/trial.mjs): what `npm install`
// leaves in a real JavaScript project, at the size of jest's (about 10,000 files, 150 MB).
//   node bench/big-deps.mjs DIR [packages=2000] [kb=70] [load=packages]
// Writes DIR/pkg-NNNN/{package.json,index.js,lib/a.js,lib/b.js,assets/data.bin} and
// DIR/all-deps/index.js, which requires the first `load` packages, three modules each (a suite
// that loads its dependencies: NODE_OPTIONS=--require=./DIR/all-deps).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, packages = '2000', kb = '70', load = packages] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/big-deps.mjs DIR [packages] [kb]');
const n = Number(packages);
const blob = Buffer.alloc(Number(kb) * 1024);
for (let i = 0; i < blob.length; i++) blob[i] = (i * 2654435761) >>> 24;
const names = [];
for (let i = 0; i < n; i++) {
  const name = `pkg-${String(i).padStart(4, '0')}`;
  names.push(name);
  const p = join(dir, name);
  mkdirSync(join(p, 'lib'), { recursive: true });
  mkdirSync(join(p, 'assets'), { recursive: true });
  writeFileSync(
    join(p, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', main: 'index.js' }),
  );
  writeFileSync(
    join(p, 'index.js'),
    `module.exports = { a: require('./lib/a.js'), b: require('./lib/b.js') };\n`,
  );
  for (const f of ['a', 'b'])
    writeFileSync(
      join(p, 'lib', `${f}.js`),
      `'use strict';\n// ${name}/${f}\n${Array.from({ length: 40 }, (_, k) => `exports.f${k} = (x) => x * ${k} + ${i};`).join('\n')}\n`,
    );
  writeFileSync(join(p, 'assets', 'data.bin'), blob);
}
mkdirSync(join(dir, 'all-deps'), { recursive: true });
writeFileSync(
  join(dir, 'all-deps', 'index.js'),
  `${names
    .slice(0, Number(load))
    .map((x) => `require('../${x}');`)
    .join('\n')}\n`,
);
