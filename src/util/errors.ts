/** A mistake by the user (bad input, missing file). Printed as one line, no stack trace. */
export class UserError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * Infrastructure failure: the harness, the environment or the provider failed, not the agent.
 * Inside a trial it is stored as status "error" with its stage and code, never scored.
 * `stage` says where (provision, agent, provider, verify...), `code` what (clone_failed,
 * unreachable, runner_not_started...); reports group errors by the two.
 */
export class InfraError extends Error {
  constructor(
    readonly stage: string,
    message: string,
    readonly code: string = 'failed',
  ) {
    super(message);
    this.name = 'InfraError';
  }
}
