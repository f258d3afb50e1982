// No isolation: commands run as NanoBench's own user. The agent can read the golden patches, the
// results database and the network; runs using it say so on stderr and in the report. The one
// thing still guaranteed is that its processes die with NanoBench (see contain.ts).
import { type Contain, detectContainment, tagPrefix } from './contain.js';
import type { SandboxDriver, SandboxSession } from './types.js';

export const NONE_WARNING =
  'sandbox "none": agents run WITHOUT isolation (they can read the dataset, including golden patches, the results and the network); scores are not tamper-proof';

/** `contain`: how commands are launched; default: the strongest that works here (probed once). */
export function noneDriver(note?: string, contain?: Contain): SandboxDriver {
  return {
    kind: 'none',
    note,
    async open(s): Promise<SandboxSession> {
      const c = contain ?? detectContainment();
      const given = new Set<string>();
      return {
        kind: 'none',
        tag: s.tag,
        wrap: (command, args, readOnly = []) => {
          for (const p of readOnly) given.add(p);
          const argv = [...tagPrefix(s.tag, s.runId), ...c.prefix, command, ...args];
          return { command: argv[0], args: argv.slice(1) };
        },
        close: async () => ({
          kind: 'none',
          writesOutside: [],
          endpointConnections: 0,
          limits: [],
          readOnly: [...given],
          containment: c.containment,
        }),
      };
    },
  };
}
