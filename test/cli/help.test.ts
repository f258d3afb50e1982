// `nanobench --help` is where a new user learns what exists: a command group's summary names
// every subcommand it has (issue 26: the `task` summary named three of nine), and every command's
// --help ends with an example or two.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function help(argv: string[]): Promise<string> {
  let out = '';
  const sink = { write: (s: string) => (out += s) } as unknown as NodeJS.WritableStream;
  expect(await main([...argv, '--help'], { stdout: sink, stderr: sink })).toBe(0);
  return out;
}

describe('nanobench --help', () => {
  it("names every subcommand of task in task's summary", async () => {
    const commandsOf = (text: string) => text.split(/^Commands:$/m)[1]?.split(/\n\n/)[0] ?? '';
    const subcommands = [...commandsOf(await help(['task'])).matchAll(/^ {2}([a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((name) => name !== 'help');
    expect(subcommands.length).toBeGreaterThanOrEqual(9);
    // task's entry in the top help: its line and the wrapped lines under it.
    const entry = commandsOf(await help([])).match(/^ {2}task .*(\n {4,}.*)*/m)?.[0] ?? '';
    const summary = entry.replace(/\s+/g, ' ').match(/dataset tasks: (.*)$/)?.[1] ?? '';
    expect(summary.split(',').map((s) => s.trim())).toEqual(subcommands);
  });

  it('shows an example under --help of every command and subcommand', async () => {
    const namesIn = (text: string) =>
      [...(text.split(/^Commands:$/m)[1]?.split(/\n\n/)[0] ?? '').matchAll(/^ {2}([a-z-]+)/gm)]
        .map((m) => m[1])
        .filter((name) => name !== 'help');
    const top = namesIn(await help([]));
    expect(top.length).toBeGreaterThanOrEqual(19);
    const without: string[] = [];
    for (const name of top) {
      const text = await help([name]);
      if (!/^Examples?\b.*:\n {2}\S/m.test(text)) without.push(name);
      for (const sub of namesIn(text))
        if (!/^Examples?\b.*:\n {2}\S/m.test(await help([name, sub])))
          without.push(`${name} ${sub}`);
    }
    expect(without).toEqual([]);
  });
});
