// The container sandbox of validate and contracts (--sandbox podman | docker): each task's
// install, suites and control trials (contract cases too) run in its environment image, as its
// trials do. Without it the gates run on this machine, as before.
import { UserError } from '../util/errors.js';
import { type SandboxDriver, selectSandbox } from '../workspace/sandbox/select.js';

export const SANDBOX_OPTION = [
  '--sandbox <engine>',
  "podman | docker: run in each task's environment image (a PR task's `environment`, a Harbor task's); PR tasks without one stay on this machine unless --image",
] as const;
export const IMAGE_OPTION = [
  '--image <ref>',
  'with --sandbox: the image of PR tasks that declare no environment',
] as const;
export const BUILD_ARG_OPTION = [
  '--build-arg <NAME=VALUE...>',
  'with --sandbox: build argument of every environment build (e.g. BASE_IMAGE=localhost/x)',
] as const;

/** The container sandbox of --sandbox (podman | docker), for Harbor and PR tasks alike. */
export async function containerSandbox(o: {
  sandbox?: string;
  buildArg?: string[];
  image?: string;
}): Promise<SandboxDriver | undefined> {
  if (o.sandbox !== undefined && o.sandbox !== 'podman' && o.sandbox !== 'docker')
    throw new UserError('BAD_OPTION', `--sandbox must be podman or docker, got "${o.sandbox}"`);
  if (o.buildArg?.length && !o.sandbox)
    throw new UserError('BAD_OPTION', '--build-arg goes with --sandbox podman or docker');
  if (o.image && !o.sandbox)
    throw new UserError('BAD_OPTION', '--image goes with --sandbox podman or docker');
  if (!o.sandbox) return undefined;
  return selectSandbox(o.sandbox as 'podman' | 'docker', {
    protectedPaths: [],
    buildArgs: o.buildArg,
    image: o.image,
  });
}
