// Agent factory: the name given to --agent becomes an Agent (the table: src/agent/agents.ts).
import { UserError } from '../util/errors.js';
import { agentEntry, agentNames } from './agents.js';
import { commandAgent } from './command.js';
import { nopAgent, oracleAgent } from './controls.js';
import type { Agent, AgentConfig } from './types.js';

export async function createAgent(config: AgentConfig): Promise<Agent> {
  const names = agentNames(config.agent);
  if (names.length > 1)
    return severalAgents(
      await Promise.all(names.map((agent) => createOne({ ...config, agent }))),
      config.agent,
    );
  return createOne(config);
}

/**
 * Several agents on one plan (`--agent nanocoder,bare`): each trial runs the agent its spec names
 * (AgentContext.agent); the facts about them are merged (their keys do not collide).
 */
export function severalAgents(agents: Agent[], name: string): Agent {
  return {
    name,
    async run(ctx) {
      const agent = agents.find((a) => a.name === ctx.agent);
      if (!agent) throw new Error(`no agent "${ctx.agent}" in this run (it has ${name})`);
      return agent.run(ctx);
    },
    async describe() {
      const infos = await Promise.all(agents.map((a) => a.describe?.() ?? {}));
      return Object.assign({}, ...infos);
    },
  };
}

async function createOne(config: AgentConfig): Promise<Agent> {
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
