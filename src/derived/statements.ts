// The module-level statements the hallucinated and interface behaviours add to a required file,
// per language: a call of a function that exists nowhere, and a call of an existing callable with
// the wrong arity or as a constructor. Each fails as the module is imported, with the message the
// scoring rules read (src/score/symbols.ts).
import { createHash } from 'node:crypto';

export type ModuleLanguage = 'python' | 'javascript';

/** The language whose module-level code runs when a file is imported, or undefined. */
export function moduleLanguage(path: string): ModuleLanguage | undefined {
  if (/\.pyi$/.test(path) || /\.d\.[cm]?ts$/.test(path)) return undefined; // declarations only
  if (/\.py$/.test(path)) return 'python';
  if (/\.[cm]?[jt]sx?$/.test(path)) return 'javascript';
  return undefined;
}

/**
 * A name no repository has: derived from the task id, so each task's is its own and the same on
 * every run. `taken` says whether the base tree already mentions a candidate.
 */
export function undefinedName(
  taskId: string,
  language: ModuleLanguage,
  taken: (name: string) => boolean,
): string {
  for (let i = 0; ; i++) {
    const h = createHash('sha256').update(`nanobench-undefined\0${taskId}\0${i}`).digest('hex');
    const name =
      language === 'python' ? `nb_undefined_${h.slice(0, 10)}` : `nbUndefined${h.slice(0, 10)}`;
    if (!taken(name)) return name;
  }
}

/** `name()`: NameError / ReferenceError "... is not defined" when the module loads. */
export function hallucinatedCall(language: ModuleLanguage, name: string): string {
  return language === 'python' ? `${name}()` : `${name}();`;
}

/**
 * An existing callable used against its interface: Python's len() with two arguments ("len()
 * takes exactly one argument (2 given)"), JavaScript's Math.max as a constructor ("Math.max is
 * not a constructor").
 */
export function interfaceCall(language: ModuleLanguage): string {
  return language === 'python' ? 'len(1, 2)' : 'new Math.max();';
}
