// The layering check (issue 25): reads every import in src/, prints the import cycles and the
// imports that run from a lower layer up to a higher one, and fails on any that is not an
// allow-listed type-only import. `npm run lint` runs it; test/layers.test.ts runs it in the unit
// tier. The layer order and the allow-list are documented in docs/ARCHITECTURE.md ("Layers").
//
//   node scripts/layers.mjs            the check (exit 1 on a cycle or an unlisted upward import)
//   node scripts/layers.mjs --figures  also the counts: modules, imports, upward ones, cycles
//
// An import is "runtime" when Node loads it (a static import with a value binding, `export ...
// from`, a dynamic import()), "type" when tsc erases it (see specifiers below).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `--src DIR`: another tree (test/fixtures/layers/ shows the check failing).
const at = process.argv.indexOf('--src');
const SRC = at > 0 ? resolve(process.argv[at + 1]) : join(ROOT, 'src');

/**
 * The layers, lowest first: a module may import its own layer and those below it. Each entry
 * names directories or files under src/ (the longest match decides). The order is the data flow
 * of a trial (docs/ARCHITECTURE.md): the task and its workspace, what runs in it, what grades it,
 * the trial core, the kinds of task plugged into it, the run that schedules trials and stores
 * them, what reads the store, and the commands on top.
 */
export const LAYERS = [
  ['util', ['util']],
  ['task', ['task', 'config']],
  ['workspace', ['workspace']],
  // derived: the scripted server's derived replies; derived/selftest.ts and what it reads sit with the gates.
  ['agent, provider', ['agent', 'provider', 'derived']],
  ['verify', ['verify']],
  ['score, integrity', ['score', 'integrity']],
  ['trial core', ['trial']],
  ['task kinds', ['trial/pr', 'harbor']],
  ['trial dispatch', ['trial/kinds.ts', 'trial/run-trial.ts']],
  ['store', ['store']],
  ['run', ['run', 'queue']],
  [
    'gates',
    ['gates', 'contracts', 'mine', 'derived/selftest.ts', 'derived/expectations.ts', 'derived/evidence.ts'],
  ],
  ['reads of the store', ['stats', 'audit', 'calibration', 'report', 'ci']],
  ['commands', ['cli', 'view']],
];

/**
 * Upward imports that are allowed: type-only ones, each with its reason. A runtime import here
 * still fails, and so does an entry no import needs any more.
 */
export const ALLOWED = [];

/**
 * What main had when the check was written (issue 25), tolerated until the step that removes it
 * lands: a problem listed here is printed but does not fail; one no longer found fails, so the
 * list only shrinks. Empty since issue 25's last step (the agent's and the proxy's own narrow
 * config types).
 */
const PENDING = new Set([]);

/** Every .ts/.tsx file under src/, relative to src/. */
function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return /\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [relative(SRC, p)] : [];
  });
}

/** The source file a relative specifier names (".js" for ".ts" or ".tsx"), or undefined. */
function resolveSpecifier(from, spec, files) {
  if (!spec.startsWith('.')) return undefined;
  const base = relative(SRC, resolve(SRC, dirname(from), spec)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`].find((f) => files.has(f));
}

/**
 * The module specifiers a file names: { spec, runtime }. Type-only are `import type`, `export
 * type`, a named list whose every binding is `type`, and `import('x')` in a type; tsc erases
 * those. Biome's useImportType (a warning `npm run lint` shows) marks the rest, so a binding used
 * only as a type is written `type` and read here as such.
 */
function specifiers(file) {
  const text = readFileSync(join(SRC, file), 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const found = [];
  const allTypes = (named) =>
    named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const type = Boolean(c && (c.isTypeOnly || (!c.name && allTypes(c.namedBindings))));
      found.push({ spec: node.moduleSpecifier.text, runtime: !type });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const c = node.exportClause;
      const type =
        node.isTypeOnly ||
        Boolean(c && ts.isNamedExports(c) && c.elements.every((e) => e.isTypeOnly));
      found.push({ spec: node.moduleSpecifier.text, runtime: !type });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push({ spec: node.arguments[0].text, runtime: true });
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      found.push({ spec: node.argument.literal.text, runtime: false });
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, kind));
  return found;
}

/** The layer index of a file under src/: the longest LAYERS entry that names it. */
function layerOf(file) {
  let best;
  for (const [i, [, paths]] of LAYERS.entries())
    for (const p of paths)
      if (file === p || file.startsWith(`${p}/`))
        if (!best || p.length > best.path.length) best = { index: i, path: p };
  return best?.index;
}

/** The import graph of src/: edges { from, to, runtime }. */
export function importGraph() {
  const list = sources();
  const files = new Set(list);
  const edges = [];
  for (const from of list) {
    const byTarget = new Map();
    for (const { spec, runtime } of specifiers(from)) {
      const to = resolveSpecifier(from, spec, files);
      if (to) byTarget.set(to, (byTarget.get(to) ?? false) || runtime);
    }
    for (const [to, runtime] of byTarget) edges.push({ from, to, runtime });
  }
  return { files: list, edges };
}

/** The strongly connected components with more than one module (Tarjan), each as one cycle. */
export function cycles(files, edges) {
  const next = new Map(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from).push(e.to);
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const strong = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v)) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(cycleThrough(scc, next));
    }
  };
  for (const f of files) if (!index.has(f)) strong(f);
  return found;
}

/** One cycle through a strongly connected component, by a breadth-first search back to its start. */
function cycleThrough(scc, next) {
  const inside = new Set(scc);
  const start = [...scc].sort()[0];
  const from = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of next.get(v)) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = from.get(v); p !== undefined; p = from.get(p)) path.unshift(p);
        return { modules: scc.length, path: [...path, start] };
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return { modules: scc.length, path: scc };
}

/** The whole check: what is wrong, and the figures. */
export function check() {
  const { files, edges } = importGraph();
  const problems = [];
  for (const f of files)
    if (layerOf(f) === undefined) problems.push(`src/${f}: in no layer (add it to LAYERS)`);
  const upward = edges.filter((e) => layerOf(e.to) > layerOf(e.from));
  const key = (e) => `${e.from} -> ${e.to}`;
  const allow = at > 0 ? [] : ALLOWED;
  const allowed = new Map(allow.map((a) => [`${a.from} -> ${a.to}`, a]));
  for (const e of upward) {
    const a = allowed.get(key(e));
    const what = `src/${e.from} -> src/${e.to} (${LAYERS[layerOf(e.from)][0]} up to ${LAYERS[layerOf(e.to)][0]}${e.runtime ? ', at runtime' : ', type-only'})`;
    if (!a) problems.push(`upward import: ${what}`);
    else if (e.runtime) problems.push(`allow-listed as type-only but loaded at runtime: ${what}`);
  }
  const used = new Set(upward.map(key));
  for (const a of allow)
    if (!used.has(`${a.from} -> ${a.to}`))
      problems.push(`allow-list entry no import needs: ${a.from} -> ${a.to}`);
  const found = cycles(files, edges);
  for (const c of found)
    problems.push(`import cycle (${c.modules} modules): ${c.path.map((p) => `src/${p}`).join(' -> ')}`);
  const pending = problems.filter((p) => PENDING.has(p));
  for (const p of PENDING)
    if (!problems.includes(p)) problems.push(`solved, remove it from PENDING: ${p}`);
  return {
    problems: problems.filter((p) => !PENDING.has(p)),
    pending,
    figures: {
      modules: files.length,
      imports: edges.length,
      runtime: edges.filter((e) => e.runtime).length,
      upward: upward.length,
      upwardRuntime: upward.filter((e) => e.runtime).length,
      cycles: found.length,
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { problems, pending, figures } = check();
  for (const p of pending) console.error(`layers: pending: ${p}`);
  for (const p of problems) console.error(`layers: ${p}`);
  if (process.argv.includes('--figures')) console.log(JSON.stringify(figures));
  if (problems.length) {
    console.error(`layers: ${problems.length} problem(s); the order and the allow-list: scripts/layers.mjs, docs/ARCHITECTURE.md "Layers"`);
    process.exit(1);
  }
  console.error(
    pending.length
      ? `layers: ${figures.modules} modules, ${figures.imports} imports; ${pending.length} problem(s) pending (issue 25), none new`
      : `layers: ${figures.modules} modules, ${figures.imports} imports, no cycle, nothing upward outside the allow-list`,
  );
}
