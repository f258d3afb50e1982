import { contextMessage, DEFAULT_KIND, errorReply, type ProviderKind } from './kinds.js';

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

/**
 * A provider's context-length error, in the kind's own format and wording (which agents and our
 * exit classifier recognise), naming the budget.
 */
export function budgetErrorBody(hit: BudgetHit, kind: ProviderKind = DEFAULT_KIND) {
  const why =
    hit.budget === 'tokens'
      ? ` (NanoBench token budget ${hit.limit} exceeded: ${hit.used} tokens used in this trial)`
      : ` (NanoBench request budget ${hit.limit} exceeded: this would be request ${hit.used})`;
  const message = contextMessage(
    kind,
    why,
    hit.budget === 'tokens' ? { limit: hit.limit, used: hit.used } : undefined,
  );
  return errorReply(kind, 400, message, 'context_length_exceeded');
}
