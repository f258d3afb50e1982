// The sandbox of validate's control trials and the contract cases (--sandbox): the one a run would
// choose (auto: bwrap where it works), so that a task admitted here grades the same way in a
// run. A suite that needs the network or a file outside the workspace passes on this machine
// and fails every sandboxed trial; under the run's sandbox the controls gate says so. With
// podman | docker each task's install, suites and trials run in its environment image instead.
// The gates' own suite runs (base, golden, flakiness) stay on this machine, as a developer runs them.
import { oneOf } from '../run/config.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import {
  SANDBOX_MODES,
  type SandboxDriver,
  sandboxHelp,
  selectSandbox,
} from '../workspace/sandbox/select.js';

export const SANDBOX_OPTION = [
  '--sandbox <mode>',
  `where the control trials (and contract cases) run, as a run's would: ${sandboxHelp()} (a PR task's \`environment\`, a Harbor task's; PR tasks without one stay on this machine unless --image)`,
] as const;
export const IMAGE_OPTION = [
  '--image <ref>',
  'with --sandbox podman | docker: the image of PR tasks that declare no environment',
] as const;
export const BUILD_ARG_OPTION = [
  '--build-arg <NAME=VALUE...>',
  'with --sandbox podman | docker: build argument of every environment build (e.g. BASE_IMAGE=localhost/x)',
] as const;

const isEngine = (s: string | undefined) => s === 'podman' || s === 'docker';

/** The sandbox of --sandbox (default auto), for the gates' trials of Harbor and PR tasks alike. */
export async function gateSandbox(o: {
  sandbox?: string;
  buildArg?: string[];
  image?: string;
  /** Hidden from the trials, as a run hides its store and datasets. */
  protectedPaths?: string[];
  warn?: (line: string) => void;
}): Promise<SandboxDriver> {
  const mode = oneOf(o.sandbox ?? 'auto', SANDBOX_MODES, '--sandbox');
  if (o.buildArg?.length && !isEngine(mode))
    throw new UserError('BAD_OPTION', '--build-arg goes with --sandbox podman or docker');
  if (o.image && !isEngine(mode))
    throw new UserError('BAD_OPTION', '--image goes with --sandbox podman or docker');
  return selectSandbox(mode, {
    protectedPaths: [...new Set([PACKAGE_ROOT, ...(o.protectedPaths ?? [])])],
    buildArgs: o.buildArg,
    image: o.image,
    warn: o.warn,
  });
}
