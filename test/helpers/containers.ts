// The container engine and the local base image the container tests run in. No image registry
// is reachable here: scripts/test-image.sh builds the image from Debian's packages
// (debootstrap) and the Node runtime NanoBench installed from npm, once; every later call (any
// test file, any worker) finds it by its tag. scripts/test.sh builds it before vitest starts and
// exports NANOBENCH_TEST_IMAGE, so a test run never builds it twice.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export const hasPodman = spawnSync('podman', ['info'], { stdio: 'ignore' }).status === 0;

/**
 * Where podman is installed the container tests are required (as root or in CI a broken podman
 * is a failure, never a skip); NANOBENCH_REQUIRE_PODMAN=1 says so too.
 */
export const noPodman =
  !hasPodman &&
  !(process.env.NANOBENCH_REQUIRE_PODMAN === '1' || process.env.CI || process.getuid?.() === 0);

let image: string | undefined;

/** The base image (built on first use when scripts/test.sh did not). */
export function testImage(): string {
  image ??=
    process.env.NANOBENCH_TEST_IMAGE ||
    execFileSync('bash', [join(ROOT, 'scripts/test-image.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 15 * 60_000,
    }).trim();
  return image;
}

/** Labels of the images NanoBench built for environments (their tags hold the cache key). */
export function environmentImages(): string[] {
  return execFileSync('podman', ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((l) => l.startsWith('localhost/nanobench-env:'));
}
