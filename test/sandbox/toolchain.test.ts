// What the sandbox shows read-only, and the bwrap command line it is built into.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs, writesOutside } from '../../src/workspace/sandbox/bwrap.js';
import { pathRoot, pathToolchains, toolchain } from '../../src/workspace/sandbox/toolchain.js';

describe('toolchain', () => {
  it('takes the install root of PATH entries outside the system directories', () => {
    expect(pathRoot('/opt/node22/bin')).toBe('/opt/node22');
    expect(pathRoot('/home/u/.pyenv/shims')).toBe('/home/u/.pyenv');
    expect(pathRoot('/opt/tools')).toBe('/opt/tools');
    const d = mkdtempSync(join(tmpdir(), 'nb-tc-'));
    for (const p of ['py/shims', 'py/bin', 'nb/node_modules/.bin', 'tools/bin'])
      mkdirSync(join(d, p), { recursive: true });
    const path = [
      '/usr/bin',
      join(d, 'py/shims'),
      join(d, 'py/bin'),
      join(d, 'nb/node_modules/.bin'), // inside NanoBench: never
      homedir(), // the home itself: never
      'relative/bin',
      join(d, 'missing/bin'),
      join(d, 'tools/bin'),
    ].join(':');
    expect(pathToolchains(path, [join(d, 'nb')])).toEqual([join(d, 'py'), join(d, 'tools')]);
  });

  it('recreates system symlinks, binds system directories and hides secrets', () => {
    const t = toolchain('/usr/bin:/bin', []);
    expect(t.readOnly).toContain('/usr');
    expect(t.readOnly).toContain('/etc');
    const all = [...t.readOnly, ...t.symlinks.map(([, d]) => d)];
    for (const d of ['/bin', '/lib']) expect(all).toContain(d);
    expect(t.hideFiles).toContain('/etc/shadow');
  });

  it('hides a protected directory that lies inside a bound one', () => {
    const t = toolchain('/usr/bin', ['/usr/share/doc', '/work/elsewhere']);
    expect(t.hideDirs).toContain('/usr/share/doc');
    expect(t.hideDirs).not.toContain('/work/elsewhere');
  });
});

describe('bwrapArgs', () => {
  it('unshares everything, drops capabilities, mounts in a safe order', () => {
    const a = bwrapArgs({
      toolchain: {
        symlinks: [['usr/bin', '/bin']],
        readOnly: ['/usr'],
        hideFiles: ['/etc/shadow'],
        hideDirs: ['/usr/x'],
      },
      readOnly: ['/opt/agent', '/tmp/checkout/node_modules/agent'],
      writable: ['/s'],
      workspace: '/tmp/r/ws',
      home: '/s/home',
      trap: '/trap',
      emptyFile: '/e',
      runDir: '/run-host',
    });
    const s = a.join(' ');
    expect(
      s.startsWith('--unshare-all --cap-drop ALL --die-with-parent --new-session --bind /trap /'),
    ).toBe(true);
    // /tmp is private, then the workspace (which may live under /tmp) is bound on top of it.
    expect(s.indexOf('--tmpfs /tmp')).toBeLessThan(s.indexOf('--bind /tmp/r/ws /tmp/r/ws'));
    expect(s.indexOf('--tmpfs /usr/x')).toBeLessThan(s.indexOf('--ro-bind /opt/agent /opt/agent'));
    // Read-only binds under the host's /tmp (a checkout in /tmp, as CI may have) must come after
    // the private /tmp, or they vanish under it.
    expect(s.indexOf('--tmpfs /tmp ')).toBeLessThan(
      s.indexOf('--ro-bind /tmp/checkout/node_modules/agent'),
    );
    expect(s).toContain('--ro-bind /e /etc/shadow');
    expect(s).toContain('--ro-bind /run-host /run/nanobench');
    expect(s.endsWith('--chdir /tmp/r/ws')).toBe(true);
  });

  it('writesOutside: everything in the trap bwrap did not create', () => {
    const trap = mkdtempSync(join(tmpdir(), 'nb-trap-'));
    for (const d of ['usr', 'tmp/r/ws', 'srv/x', 'tmp/r/other'])
      mkdirSync(join(trap, d), { recursive: true });
    symlinkSync('usr/bin', join(trap, 'bin'));
    expect(writesOutside(trap, ['/usr', '/bin', '/tmp', '/tmp/r/ws'])).toEqual([
      '/srv',
      '/tmp/r/other',
    ]);
  });
});
