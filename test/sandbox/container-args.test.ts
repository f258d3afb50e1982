// Issue #17: what the container driver asks the engine for, as argv (the e2e tests run it).
import { describe, expect, it } from 'vitest';
import { CONTAINER_INIT, runArgs } from '../../src/workspace/sandbox/container.js';
import { type Engine, ownLimits, ulimitArgs } from '../../src/workspace/sandbox/engine.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max file size             unlimited            unlimited            bytes
Max data size             unlimited            unlimited            bytes
Max processes             96365                96365                processes
Max open files            20000                20000                files
`;

describe('ulimits', () => {
  it('reads /proc/self/limits', () => {
    expect(ownLimits(LIMITS)['Max open files']).toEqual([20000, 20000]);
    expect(ownLimits(LIMITS)['Max file size']).toEqual([null, null]);
  });

  it('never above our own soft limits (the runtime refuses to raise them)', () => {
    const a = ulimitArgs(ownLimits(LIMITS));
    expect(a).toContain('nofile=20000:20000');
    expect(a).toContain('nproc=1024:1024');
    expect(a).toContain('core=0:0');
    const low = ulimitArgs(
      ownLimits(LIMITS.replace('96365                96365', '500                  500')),
    );
    expect(low).toContain('nproc=500:500');
  });
});

describe('run arguments', () => {
  const engine: Engine = {
    name: 'podman',
    bin: '/usr/bin/podman',
    runtimeArgs: ['--runtime', '/usr/sbin/runc'],
    ulimits: ['--ulimit', 'nofile=1024:1024'],
  };
  const spec = {
    engine,
    name: 'nb-x',
    labels: { 'nanobench.tag': 't1' },
    image: 'sha256:abc',
    workdir: '/app',
    mounts: [
      { source: '/host/ws', target: '/app' },
      { source: '/host/sol', target: '/solution', readOnly: true },
    ],
    env: { HOME: '/h' },
    network: 'none' as const,
    readOnlyRoot: true,
    resources: { cpus: 2, memoryMb: 512 },
    command: ['/bin/sh', '-c', 'echo hi'],
  };

  it('no network, no capabilities, no new privileges, limits, the runtime, no pull', () => {
    const a = runArgs(spec);
    const flagValue = (flag: string) => a[a.indexOf(flag) + 1];
    expect(flagValue('--network')).toBe('none');
    expect(flagValue('--cap-drop')).toBe('ALL');
    expect(flagValue('--security-opt')).toBe('no-new-privileges');
    expect(flagValue('--runtime')).toBe('/usr/sbin/runc');
    expect(flagValue('--pull')).toBe('never');
    expect(flagValue('--cpus')).toBe('2');
    expect(flagValue('--memory')).toBe('512m');
    expect(flagValue('--pids-limit')).toBe('1024');
    expect(a).toContain('--read-only');
    expect(a).toContain('/host/sol:/solution:ro');
    expect(a).toContain('/host/ws:/app');
    expect(flagValue('-w')).toBe('/app');
    expect(flagValue('--label')).toBe('nanobench.tag=t1');
  });

  it('the environment goes in by name where the launcher puts it; the command runs under the init', () => {
    const a = runArgs(spec);
    expect(a.indexOf('@ENV@')).toBeLessThan(a.indexOf('HOME=/h'));
    const image = a.indexOf('sha256:abc');
    expect(a[image - 1]).toBe('/bin/sh');
    expect(a.slice(image + 1)).toEqual([
      '-c',
      CONTAINER_INIT,
      'nb-init',
      '/bin/sh',
      '-c',
      'echo hi',
    ]);
  });

  it('a writable image and the host network only when asked (install steps)', () => {
    const a = runArgs({ ...spec, readOnlyRoot: false, network: 'host' });
    expect(a).not.toContain('--read-only');
    expect(a[a.indexOf('--network') + 1]).toBe('host');
  });

  it('docker: no podman-only flags', () => {
    const a = runArgs({ ...spec, engine: { ...engine, name: 'docker', runtimeArgs: [] } });
    expect(a).not.toContain('--pull');
    expect(a).not.toContain('--runtime');
  });
});
