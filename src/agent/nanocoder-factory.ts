// Builds the Nanocoder agent from a run configuration. The build and a Node >= 22.19 are
// resolved up front, so a run fails before its first trial rather than in every trial; so is the
// compile cache of that build (src/agent/compile-cache.ts; NANOBENCH_COMPILE_CACHE=off: none).
import { compileCacheRoot } from './compile-cache.js';
import { NanocoderAgent } from './nanocoder.js';
import type { Agent, AgentConfig } from './types.js';

export async function createNanocoderAgent(config: AgentConfig): Promise<Agent> {
  const agent = new NanocoderAgent({
    nanocoderPath: config.nanocoder,
    nodePath: config.node,
    compileCacheRoot: compileCacheRoot(),
  });
  await agent.prepare();
  return agent;
}
