// Agent factory: the name given to --agent becomes an Agent.
import type { RunConfig } from '../run/config.js';
import { UserError } from '../util/errors.js';
import { commandAgent } from './command.js';
import { nopAgent, oracleAgent } from './controls.js';
import type { Agent } from './types.js';

export async function createAgent(config: RunConfig): Promise<Agent> {
  if (config.agent === 'oracle') return oracleAgent;
  if (config.agent === 'nop') return nopAgent;
  if (config.agent.startsWith('command:'))
    return commandAgent(config.agent.slice('command:'.length), config.cwd);
  if (config.agent === 'nanocoder') {
    const { createNanocoderAgent } = await import('./nanocoder-factory.js');
    return createNanocoderAgent(config);
  }
  throw new UserError('BAD_AGENT', `unknown agent "${config.agent}"`);
}
