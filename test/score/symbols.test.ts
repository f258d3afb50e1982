import { describe, expect, it } from 'vitest';
import {
  defines,
  isInterfaceMismatch,
  lastIdentifier,
  missingSymbols,
  references,
} from '../../src/score/symbols.js';

describe('missingSymbols', () => {
  it.each([
    ["AttributeError: 'Cart' object has no attribute 'total_with_tax'", 'total_with_tax'],
    ["AttributeError: module 'invoicing.tax' has no attribute 'round_half'", 'round_half'],
    ["NameError: name 'clamp' is not defined", 'clamp'],
    ["ImportError: cannot import name 'Money' from 'invoicing.money'", 'Money'],
    ['TypeError: strings.padWidth is not a function', 'padWidth'],
    ['TypeError: (intermediate value).helpGroup is not a function', 'helpGroup'],
    ['__vite_ssr_import_0__.formatPrice is not a function', 'formatPrice'],
    ['ReferenceError: normalizeWidth is not defined', 'normalizeWidth'],
    // node --test TAP puts the error and its name on separate YAML keys
    ["error: 'normalizeWidth is not defined'\n      name: 'ReferenceError'", 'normalizeWidth'],
    [
      "SyntaxError: The requested module './a.js' does not provide an export named 'toTitle'",
      'toTitle',
    ],
    ["src/x.ts(1,1): error TS2339: Property 'sizeOf' does not exist on type 'Foo'.", 'sizeOf'],
    ["error TS2305: Module '\"./m\"' has no exported member 'Thing'.", 'Thing'],
    // ts-jest's coloured diagnostic on stderr (liquidjs, selftest of nanobench-v1)
    [
      "\x1b[96msrc/filters/math.ts\x1b[0m:\x1b[93m21\x1b[0m:\x1b[93m1\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2304: \x1b[0mCannot find name 'nbUndefined3735'.",
      'nbUndefined3735',
    ],
    ["src/a.ts(2,1): error TS2552: Cannot find name 'roundTo'. Did you mean 'round'?", 'roundTo'],
  ])('%s -> %s', (text, sym) => {
    expect(missingSymbols(text)).toContain(sym);
  });
  it('finds nothing in an assertion failure', () => {
    expect(
      missingSymbols(
        'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n1 !== 2',
      ),
    ).toEqual([]);
  });
});

describe('lastIdentifier', () => {
  it('takes the last identifier of a member chain', () => {
    expect(lastIdentifier('a.b?.c')).toBe('c');
    expect(lastIdentifier('(intermediate value)')).toBe('value');
  });
});

describe('isInterfaceMismatch', () => {
  it.each([
    'TypeError: apply() takes 1 positional argument but 2 were given',
    "TypeError: apply() got an unexpected keyword argument 'rate'",
    "TypeError: apply() missing 1 required positional argument: 'rate'",
    'TypeError: Money is not a constructor',
    "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    // ts-jest's coloured diagnostics (liquidjs: `new Math.max()` at module level)
    "\x1b[91merror\x1b[0m\x1b[90m TS7009: \x1b[0m'new' expression, whose target lacks a construct signature, implicitly has an 'any' type.",
    "src/a.ts(1,1): error TS2350: Only a void function can be called with the 'new' keyword.",
  ])('%s', (text) => expect(isInterfaceMismatch(text)).toBe(true));
  it('is false for a plain assertion', () =>
    expect(isInterfaceMismatch('AssertionError: 3 != 4')).toBe(false));
});

describe('references / defines', () => {
  it('matches whole words only', () => {
    expect(references(['x = clampWidth(1)'], 'clamp')).toBe(false);
    expect(references(['x = clamp(1)'], 'clamp')).toBe(true);
  });
  it.each([
    ['def clamp(x):', true],
    ['export function clamp(x) {', true],
    ['const clamp = (x) => x;', true],
    ['  clamp(x) {', true],
    ['  clamp: (x) => x,', true],
    ['export { clamp } from "./c.js";', true],
    ['return clamp(x);', false],
    ['if (clamp(x) == 1) {', false],
  ])('%s defines clamp: %s', (line, want) => expect(defines([line], 'clamp')).toBe(want));
});
