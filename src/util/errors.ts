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

/** Infrastructure failure inside a trial: the trial is stored as status "error", never scored. */
export class InfraError extends Error {
  constructor(
    readonly stage: string,
    message: string,
  ) {
    super(message);
    this.name = 'InfraError';
  }
}
