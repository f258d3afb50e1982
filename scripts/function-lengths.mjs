// Functions that grew past a screen (issue 25): none in src/cli/ or src/run/ may be longer than
// MAX_LINES; `--figures` lists every function of src/ over it, longest first. `npm run lint` runs
// the check; test/layers.test.ts runs it in the unit tier.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const SRC = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'src');
export const MAX_LINES = 100;
/** Where the limit holds: the commands and the run, whose policy belongs in the library. */
export const CHECKED = ['cli', 'run'];

/** What main had when the check was written, tolerated until its step lands (only shrinks). */
const PENDING = new Set([]);

function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return /\.tsx?$/.test(d.name) ? [relative(SRC, p)] : [];
  });
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isCallExpression(p)) return `callback of ${p.expression.getText().slice(0, 40)}`;
  return 'anonymous';
}

/** Every function (declarations, methods, arrows, components) longer than `min` lines. */
export function longFunctions(min = MAX_LINES) {
  const found = [];
  for (const file of sources()) {
    const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const text = readFileSync(join(SRC, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, kind);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
        const lines = line(node.end) - line(node.getStart(sf)) + 1;
        if (lines > min) found.push({ file: `src/${file}`, name: nameOf(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const long = longFunctions();
  if (process.argv.includes('--figures'))
    for (const f of long) console.log(`${f.lines}\t${f.file}\t${f.name}`);
  const checked = long.filter((f) => CHECKED.some((d) => f.file.startsWith(`src/${d}/`)));
  const id = (f) => `${f.file} ${f.name}`;
  const problems = [
    ...checked
      .filter((f) => !PENDING.has(id(f)))
      .map((f) => `${id(f)}: ${f.lines} lines (at most ${MAX_LINES} in src/${CHECKED.join('/, src/')}/)`),
    ...[...PENDING]
      .filter((p) => !checked.some((f) => id(f) === p))
      .map((p) => `solved, remove it from PENDING: ${p}`),
  ];
  for (const p of problems) console.error(`function-lengths: ${p}`);
  if (problems.length) process.exit(1);
  console.error(`function-lengths: nothing over ${MAX_LINES} lines in src/${CHECKED.join('/, src/')}/${PENDING.size ? ` but ${PENDING.size} pending (issue 25)` : ''}`);
}
