// Choosing the sandbox: bwrap when it works; `none` is none-as-nobody for root and plain none
// (contained in a pid namespace) for anyone else, both with a warning; `auto` without bwrap falls
// back for control and command agents and for scripted models (the demo) but refuses an LLM agent;
// `bwrap` refuses to run without it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetContainment } from '../../src/workspace/sandbox/contain.js';
import { NONE_WARNING, selectSandbox } from '../../src/workspace/sandbox/select.js';
import { ROOT } from '../helpers/cli.js';
import { asUnprivileged, isRoot } from '../helpers/processes.js';
import { noBwrap } from './require-bwrap.js';

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
  forgetContainment();
});

/** A PATH with what the drivers need from util-linux and coreutils, but no bwrap. */
function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nb-path-'));
  for (const tool of ['sh', 'env', 'setpriv', 'unshare', 'mount', 'umount', 'chown', 'mkdir', 'ln'])
    symlinkSync(`/usr/bin/${tool}`, join(dir, tool));
  return dir;
}

describe('selectSandbox', () => {
  it.skipIf(!isRoot)(
    'none, as root: none-as-nobody, warning that the network is open',
    async () => {
      const warnings: string[] = [];
      const d = await selectSandbox('none', { protectedPaths: [], warn: (l) => warnings.push(l) });
      expect(d.kind).toBe('none-as-nobody');
      expect(d.note).toBe('requested with --sandbox none');
      expect(warnings).toEqual([
        expect.stringMatching(
          /^WARNING: sandbox "none-as-nobody": .* the user nobody .* WITH the network/,
        ),
      ]);
    },
  );

  it('none, as an unprivileged user: plain none in a pid namespace, warning of no isolation', () => {
    const script = `
      const { selectSandbox } = await import(${JSON.stringify(join(ROOT, 'dist/workspace/sandbox/select.js'))});
      const warnings = [];
      const d = await selectSandbox('none', { protectedPaths: [], warn: (l) => warnings.push(l) });
      const s = await d.open({ workspace: '/', home: '/', tag: 't' });
      console.log(JSON.stringify({ kind: d.kind, warnings, report: await s.close() }));`;
    const r = spawnSync(
      asUnprivileged()[0] ?? process.execPath,
      [...asUnprivileged().slice(1), ...(isRoot ? [process.execPath] : [])].concat([
        '--input-type=module',
        '-e',
        script,
      ]),
      { encoding: 'utf8', cwd: '/' },
    );
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.kind).toBe('none');
    // Nothing about processes outliving NanoBench: the pid namespace holds them.
    expect(out.warnings).toEqual([`WARNING: ${NONE_WARNING}`]);
    expect(out.report.containment).toBe('pid-namespace');
  });

  it('auto without bwrap: falls back for command and control agents, refuses an LLM agent', async () => {
    process.env.PATH = pathWithoutBwrap();
    const warnings: string[] = [];
    const d = await selectSandbox('auto', { protectedPaths: [], warn: (l) => warnings.push(l) });
    expect(d.kind).toBe(isRoot ? 'none-as-nobody' : 'none');
    expect(d.note).toMatch(/^auto: bwrap unusable \(bwrap \(bubblewrap\) is not installed\)/);
    expect(warnings).toEqual([
      expect.stringMatching(/^WARNING: --sandbox auto: bwrap unusable \(.*\); sandbox "none/),
    ]);
    const llm = selectSandbox('auto', { protectedPaths: [], llmAgent: true });
    await expect(llm).rejects.toThrow(
      /^--sandbox auto: bwrap unusable \(bwrap \(bubblewrap\) is not installed\); an LLM agent does not run without a sandbox unless asked: .*pass --sandbox none explicitly$/,
    );
    // Scripted models (the demo): a fixed list of replies, so the LLM agent falls back too.
    const scripted: string[] = [];
    const demo = await selectSandbox('auto', {
      protectedPaths: [],
      llmAgent: true,
      scriptedModels: true,
      warn: (l) => scripted.push(l),
    });
    expect(demo.kind).toBe(d.kind);
    expect(demo.note).toMatch(/, and the models are scripted \(fixed replies\)$/);
    expect(scripted).toEqual([
      expect.stringMatching(
        /^WARNING: --sandbox auto: bwrap unusable \(bwrap \(bubblewrap\) is not installed\), and the models are scripted \(fixed replies\); sandbox "none/,
      ),
    ]);
    await expect(selectSandbox('bwrap', { protectedPaths: [] })).rejects.toThrow(
      /--sandbox bwrap: bwrap \(bubblewrap\) is not installed/,
    );
  });

  it.skipIf(noBwrap)('auto takes bwrap when a sandboxed command runs here', async () => {
    const warnings: string[] = [];
    const d = await selectSandbox('auto', {
      protectedPaths: [],
      warn: (l) => warnings.push(l),
      llmAgent: true,
    });
    expect(d.kind).toBe('bwrap');
    expect(warnings).toEqual([]);
  });
});
