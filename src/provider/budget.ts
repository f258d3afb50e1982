// Per-trial budgets. Past one, the proxy answers as a provider does when the context is full:
// agents already stop on that error, so a budget ends a trial the same way on any agent.

export interface Budgets {
  tokenBudget?: number;
  requestBudget?: number;
}

export interface BudgetHit {
  budget: 'tokens' | 'requests';
  limit: number;
  /** Tokens used so far, or the number the refused request would have had. */
  used: number;
}

/** The budget request number `requestNo` would exceed, given the tokens used so far. */
export function overBudget(
  b: Budgets,
  requestNo: number,
  tokensUsed: number,
): BudgetHit | undefined {
  if (b.requestBudget !== undefined && requestNo > b.requestBudget)
    return { budget: 'requests', limit: b.requestBudget, used: requestNo };
  if (b.tokenBudget !== undefined && tokensUsed > b.tokenBudget)
    return { budget: 'tokens', limit: b.tokenBudget, used: tokensUsed };
  return undefined;
}

/** OpenAI's context-length error (which our exit classifier and agents recognise), naming the budget. */
export function budgetErrorBody(hit: BudgetHit) {
  const message =
    hit.budget === 'tokens'
      ? `This model's maximum context length is ${hit.limit} tokens. However, your messages ` +
        `resulted in ${hit.used} tokens. (NanoBench token budget ${hit.limit} exceeded: ` +
        `${hit.used} tokens used in this trial)`
      : `This model's maximum context length is exceeded. (NanoBench request budget ` +
        `${hit.limit} exceeded: this would be request ${hit.used})`;
  return {
    error: { message, type: 'invalid_request_error', param: null, code: 'context_length_exceeded' },
  };
}
