// Agent factory: the name given to --agent becomes an Agent (the table: src/agent/agents.ts).
import type { RunConfig } from '../run/config.js';
import { UserError } from '../util/errors.js';
import { agentEntry } from './agents.js';
import { commandAgent } from './command.js';
import { nopAgent, oracleAgent } from './controls.js';
import type { Agent } from './types.js';

export async function createAgent(config: RunConfig): Promise<Agent> {
  switch (agentEntry(config.agent)?.name) {
    case 'oracle':
      return oracleAgent;
    case 'nop':
      return nopAgent;
    case 'command:':
      return commandAgent(config.agent.slice('command:'.length), config.cwd);
    case 'bare': {
      const { BareAgent } = await import('./bare.js');
      return new BareAgent();
    }
    case 'nanocoder': {
      const { createNanocoderAgent } = await import('./nanocoder-factory.js');
      return createNanocoderAgent(config);
    }
    default:
      throw new UserError('BAD_AGENT', `unknown agent "${config.agent}"`);
  }
}
