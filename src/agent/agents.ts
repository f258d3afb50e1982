// The agents --agent can name, in one table: what kind each is, what it needs and what it does.
// Validation, the --agent help and the factory (src/agent/index.ts) read it.

export interface AgentEntry {
  /** What --agent takes; `command:` is followed by the shell command. */
  name: 'nanocoder' | 'bare' | 'oracle' | 'nop' | 'command:';
  /** `llm`: talks to a model through the provider proxy (needs --model, never runs unsandboxed
   * under --sandbox auto); `control`: a fixed answer; `command`: whatever the shell runs. */
  kind: 'llm' | 'control' | 'command';
  /** What a run of it mostly waits on: `model`, a provider's reply (it holds an agent slot of
   * that provider); `cpu`, this machine (it holds a verify slot, as a test suite does). */
  waitsOn: 'model' | 'cpu';
  /** How the help and the error messages write it. */
  usage: string;
  needs: string;
  help: string;
}

export const AGENTS: readonly AgentEntry[] = [
  {
    name: 'nanocoder',
    kind: 'llm',
    waitsOn: 'model',
    usage: 'nanocoder',
    needs: '--model NAME (one or more) and a provider',
    help: 'the Nanocoder CLI, its model reached only through the provider proxy',
  },
  {
    name: 'bare',
    kind: 'llm',
    waitsOn: 'model',
    usage: 'bare',
    needs: '--model NAME (one or more) and an OpenAI-compatible provider',
    help: 'the model alone, no harness: the task in one request (hinted) or a file list and up to 8 files it asks for (navigation), its answer applied as whole-file replacements (src/agent/bare-format.ts)',
  },
  {
    name: 'oracle',
    kind: 'control',
    waitsOn: 'cpu',
    usage: 'oracle',
    needs: 'nothing',
    help: "applies the task's golden patch (a Harbor task: runs solution/solve.sh); scores 1.0",
  },
  {
    name: 'nop',
    kind: 'control',
    waitsOn: 'cpu',
    usage: 'nop',
    needs: 'nothing',
    help: 'changes nothing; scores 0.0',
  },
  {
    name: 'command:',
    kind: 'command',
    waitsOn: 'cpu',
    usage: 'command:<shell>',
    needs: 'a shell command after the colon',
    help: 'runs the shell command in the workspace, the prompt in $NANOBENCH_PROMPT_FILE and on stdin',
  },
];

/**
 * The agents of an --agent value: "nanocoder,bare" names two, run on the same plan (paired). A
 * `command:` takes the rest of the value, commas and all ("bare,command:./a.sh x,y" is two).
 */
export function agentNames(value: string): string[] {
  const out: string[] = [];
  const parts = value.split(',');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith('command:')) {
      out.push(parts.slice(i).join(','));
      break;
    }
    out.push(parts[i]);
  }
  return out;
}

/** What the run's agents mostly wait on: the model when any of them does. */
export const agentsWaitOn = (value: string): AgentEntry['waitsOn'] =>
  agentNames(value).some((a) => agentEntry(a)?.waitsOn === 'model') ? 'model' : 'cpu';

/** The entry an --agent value names, if any. */
export const agentEntry = (agent: string): AgentEntry | undefined =>
  AGENTS.find((a) => (a.name.endsWith(':') ? agent.startsWith(a.name) : agent === a.name));

/** "nanocoder | bare | oracle | nop | command:<shell>", for --help. */
export const agentUsage = (sep = ' | ') => AGENTS.map((a) => a.usage).join(sep);

/** "nanocoder, bare, oracle, nop or command:<shell>", for an error message. */
export const agentList = () => {
  const u = AGENTS.map((a) => a.usage);
  return `${u.slice(0, -1).join(', ')} or ${u[u.length - 1]}`;
};
