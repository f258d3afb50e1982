// Level-4 content signals: find the symbol named by a "missing symbol" failure, and recognise
// interface mismatches. Pure string work over runner output; kept small and heavily tested.

const IDENT = '[A-Za-z_$][A-Za-z0-9_$]*';

/** Last identifier of a called expression: `(intermediate value).helpGroup` -> helpGroup,
 * `__vite_ssr_import_0__.slugify` -> slugify, `a.b?.c` -> c. */
export function lastIdentifier(expr: string): string | undefined {
  const ids = expr.match(new RegExp(IDENT, 'g'));
  return ids?.[ids.length - 1];
}

const MISSING_SYMBOL: RegExp[] = [
  // Python
  new RegExp(`AttributeError: .*has no attribute '(${IDENT})'`, 'g'),
  new RegExp(`NameError: name '(${IDENT})' is not defined`, 'g'),
  new RegExp(`ImportError: cannot import name '(${IDENT})'`, 'g'),
  // JavaScript / TypeScript (vitest JSON may drop the "TypeError:" / "ReferenceError:" prefix)
  new RegExp(`(?<![A-Za-z0-9_$.])(${IDENT}) is not defined`, 'g'),
  new RegExp(`does not provide an export named '(${IDENT})'`, 'g'),
  new RegExp(`TS2339: Property '(${IDENT})' does not exist`, 'g'),
  new RegExp(`TS2305: Module .* has no exported member '(${IDENT})'`, 'g'),
  new RegExp(`TS2724: .* has no exported member named '(${IDENT})'`, 'g'),
];
const NOT_A_FUNCTION = /([^\s'"`]+) is not a function/g;

/** Every symbol that a failure text says is missing, in order of appearance, de-duplicated. */
export function missingSymbols(text: string): string[] {
  const found: string[] = [];
  for (const re of MISSING_SYMBOL) for (const m of text.matchAll(re)) found.push(m[1]);
  for (const m of text.matchAll(NOT_A_FUNCTION)) {
    const id = lastIdentifier(m[1]);
    if (id) found.push(id);
  }
  return [...new Set(found)];
}

const INTERFACE_MISMATCH: RegExp[] = [
  /takes \d+ positional arguments? but \d+ (?:were|was) given/,
  /got an unexpected keyword argument/,
  /missing \d+ required (?:positional|keyword-only) arguments?/,
  /got multiple values for argument/,
  /TypeError: .*must be [a-z ]+, not /,
  /is not a constructor/,
  /ERR_INVALID_ARG_TYPE/,
  /TS2345:/,
  /TS2554:/,
];

export function isInterfaceMismatch(text: string): boolean {
  return INTERFACE_MISMATCH.some((re) => re.test(text));
}

const escapeDollar = (s: string) => s.replace(/[$]/g, '\\$');

/** Does the change reference `sym` as a whole word? */
export function references(addedLines: string[], sym: string): boolean {
  const re = new RegExp(`(?<![A-Za-z0-9_$])${escapeDollar(sym)}(?![A-Za-z0-9_$])`);
  return addedLines.some((l) => re.test(l));
}

/** Does the change define `sym` (function, class, method, variable, export, Python def)? */
export function defines(addedLines: string[], sym: string): boolean {
  const s = escapeDollar(sym);
  const patterns = [
    new RegExp(`\\b(?:def|class|function\\*?|const|let|var)\\s+${s}\\b`),
    new RegExp(`^\\s*(?:async\\s+|static\\s+|get\\s+|set\\s+)*${s}\\s*\\([^)]*\\)\\s*\\{`),
    new RegExp(`^\\s*(?:self\\.|this\\.)?${s}\\s*[:=](?!=)`),
    new RegExp(`\\bexport\\s*\\{[^}]*\\b${s}\\b`),
    new RegExp(`\\b(?:exports|module\\.exports)\\.${s}\\s*=`),
  ];
  return addedLines.some((l) => patterns.some((re) => re.test(l)));
}
