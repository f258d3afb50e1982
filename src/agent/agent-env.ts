// The environment an agent process starts with. NanoBench's own holds the user's secrets (provider
// keys, GITHUB_TOKEN, cloud credentials), and a command agent that ran `env` once put
// OPENAI_API_KEY into its stdout artifact: so an agent gets an allow-list of NanoBench's
// variables, never the rest, plus what the harness sets for it (HOME, the NANOBENCH_* task
// variables, a judge's URL, Nanocoder's config). Test suites get their own, smaller one
// (cleanTestEnv in src/verify/verifier.ts).

/** Names an agent may inherit from NanoBench's environment. */
const INHERITED: RegExp[] = [
  /^PATH$/,
  // Locale and time zone: how the agent's tools read and print text and dates.
  /^LANG$/,
  /^LANGUAGE$/,
  /^LC_[A-Z]+$/,
  /^TZ$/,
  /^TERM$/,
  // NanoBench's own settings (NANOBENCH_NODE, NANOBENCH_OCI_RUNTIME...).
  /^NANOBENCH_[A-Z0-9_]+$/,
  // What the container engine's client needs to find its service (the sandbox's launcher runs
  // it with this environment); the launcher keeps them out of the container.
  /^XDG_RUNTIME_DIR$/,
  /^CONTAINER_HOST$/,
  /^DOCKER_HOST$/,
];

export const inheritedByAgents = (name: string): boolean => INHERITED.some((re) => re.test(name));

/** NanoBench's variables an agent may see, then `set` (which wins). */
export function agentEnv(
  set: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from))
    if (v !== undefined && inheritedByAgents(k)) env[k] = v;
  return { ...env, ...set };
}
