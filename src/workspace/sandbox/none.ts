// No isolation: commands run as they are. The agent can read the golden patches, the results
// database and the network; runs using it say so on stderr and in the report.
import type { SandboxDriver, SandboxSession } from './types.js';

export const NONE_WARNING =
  'sandbox "none": agents run WITHOUT isolation (they can read the dataset, including golden patches, the results and the network); scores are not tamper-proof';

export function noneDriver(note?: string): SandboxDriver {
  return {
    kind: 'none',
    note,
    async open(s): Promise<SandboxSession> {
      const given = new Set<string>();
      return {
        kind: 'none',
        tag: s.tag,
        wrap: (command, args, readOnly = []) => {
          for (const p of readOnly) given.add(p);
          return { command, args };
        },
        close: async () => ({
          kind: 'none',
          writesOutside: [],
          endpointConnections: 0,
          limits: [],
          readOnly: [...given],
        }),
      };
    },
  };
}
