// Test commands that keep the runner's own reporter options out of the tested code's
// process.argv. Runners that run the tests in their own process (jest in band, mocha, pytest)
// leave their command line in process.argv / sys.argv, where a command-line library under test
// reads it: commander's own tests saw jest's --ci --json --outputFile, called process.exit, and
// the runner never wrote its report. So the options go where each runner allows instead:
// - jest: its CLI entry `require("jest").run(argv)` from `node -e` (jest has no environment
//   variable or config file for --json/--outputFile that a command could set without touching
//   the checkout); the tests then see process.argv = [node], as under a bare `jest`.
// - mocha (6 and later): `require("mocha/lib/cli/cli.js").main(argv)`, the function bin/mocha
//   calls when no Node option needs a child process; with Node options the command stays.
// - pytest: PYTEST_ADDOPTS, which pytest reads as if given first on its command line.
// Not needed: vitest (its workers' process.argv is [node, worker script]), node --test and tap
// (each test file is a child process; --test-reporter is Node's own option, not the script's),
// tape (no reporter option). unittest keeps -v: its verbose output is what is parsed.

/** A shell word without its quotes: what the runner receives as one argument. */
export function unquote(word: string): string {
  if (
    word.length >= 2 &&
    ((word[0] === '"' && word.endsWith('"')) || (word[0] === "'" && word.endsWith("'")))
  )
    return word.slice(1, -1);
  return word;
}

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `node -e '<call>(["a","b"])'`: the runner's CLI entry called with its arguments. */
function nodeEval(call: string, args: string[]): string {
  return `node -e ${shellQuote(`${call}(${JSON.stringify(args.map(unquote))})`)}`;
}

export function jestCommand(args: string[]): string {
  return nodeEval('require("jest").run', args);
}

/** Options bin/mocha hands to a Node child process (main() would not honour them). */
const NODE_FLAG =
  /^(--inspect|--inspect-brk|--expose-gc|--experimental-|--no-warnings|--no-deprecation|--loader|--import|--enable-source-maps|--conditions|--max-old-space-size|--stack-size|--node-option|-n$|--trace-)/;

/** The argv-free mocha command, or undefined when mocha must start a Node child of its own. */
export function mochaCommand(args: string[], version: number | undefined): string | undefined {
  if (version !== undefined && version < 6) return undefined;
  if (args.some((a) => NODE_FLAG.test(unquote(a)))) return undefined;
  return nodeEval('require("mocha/lib/cli/cli.js").main', args);
}

/** pytest with its reporter options in PYTEST_ADDOPTS; the test files stay on its command line. */
export function pytestCommand(
  prefix: string,
  python: string,
  addopts: string[],
  files: string[],
): string {
  const tail = files.length ? ` ${files.join(' ')}` : '';
  return `${prefix}PYTEST_ADDOPTS=${shellQuote(addopts.join(' '))} ${python} -m pytest${tail}`;
}
