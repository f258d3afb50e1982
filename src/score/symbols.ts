// Level-4 content signals: find the symbol named by a "missing symbol" failure, and recognise
// interface mismatches. Pure string work over runner output; kept small and heavily tested.
// Colour codes are taken out first: ts-jest prints its diagnostics coloured on the suite's
// stderr ("\x1b[90m TS2304: \x1b[0mCannot find name ..."), seen on liquidjs in the selftest.
import { stripAnsi } from '../verify/parsers/common.js';

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
  // "Cannot find name 'x'." and its "Did you mean 'y'?" form: a name that exists nowhere
  new RegExp(`TS(?:2304|2552): Cannot find name '(${IDENT})'`, 'g'),
];
const NOT_A_FUNCTION = /([^\s'"`]+) is not a function/g;

/** Every symbol that a failure text says is missing, in order of appearance, de-duplicated. */
export function missingSymbols(raw: string): string[] {
  const text = stripAnsi(raw);
  const found: string[] = [];
  for (const re of MISSING_SYMBOL) for (const m of text.matchAll(re)) found.push(m[1]);
  for (const m of text.matchAll(NOT_A_FUNCTION)) {
    const id = lastIdentifier(m[1]);
    if (id) found.push(id);
  }
  return [...new Set(found)];
}

// Wrong arity, keyword or argument type, as the interpreters print them
// (test/fixtures/interface-mismatch/messages.json holds the captured messages).
const INTERFACE_MISMATCH: RegExp[] = [
  // Python functions: "takes 2 positional arguments but 3 were given", "takes from 1 to 2 ...",
  // "... but 2 positional arguments (and 1 keyword-only argument) were given"
  /takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:positional arguments? \(and \d+ keyword-only arguments?\) )?(?:were|was) given/,
  /got an unexpected keyword argument/,
  /missing \d+ required (?:positional|keyword-only) arguments?/,
  /got multiple values for argument/,
  /got some positional-only arguments passed as keyword arguments/,
  // CPython built-ins: "takes exactly one argument (0 given)", "takes no arguments (1 given)",
  // "C() takes no arguments", "takes no keyword arguments", "expected 2 arguments, got 1",
  // "'x' is an invalid keyword argument for int()", "missing required argument 'bytes' (pos 1)"
  /takes (?:exactly|at least|at most) (?:one|\d+) (?:positional )?arguments? \(\d+ given\)/,
  /takes no (?:keyword )?arguments/,
  /expected (?:at least |at most )?\d+ arguments?, got \d+/,
  /is an invalid keyword argument for /,
  /missing required argument '/,
  // Argument types: "argument must be str, not int", "expected str, bytes or os.PathLike object, not float"
  /TypeError: [^\n]*\b(?:must be|expected) [^\n]*, not '?[A-Za-z_]/,
  // JavaScript / Node (the bare message too: vitest's JSON may drop "TypeError [CODE]:")
  /is not a constructor/,
  /Class constructor \S+ cannot be invoked without 'new'/,
  /called on non-object/,
  /ERR_INVALID_ARG_TYPE|ERR_MISSING_ARGS/,
  /The (?:"[^"]+"(?:, "[^"]+")*(?: and "[^"]+")?|first|second|third) (?:arguments?|property) must be (?:of type|an instance of|one of type|specified)/,
  /TS2345:/,
  /TS2554:/,
  // `new` on something that is no constructor, as the type checker says it (ts-jest, tsc)
  /TS7009:/,
  /TS2350:/,
];

export function isInterfaceMismatch(raw: string): boolean {
  const text = stripAnsi(raw);
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
