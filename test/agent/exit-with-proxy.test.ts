// Issue #6: the proxy's record of the last reply feeds the context/rate-limit rule when the
// agent's own output only says "error".
import { describe, expect, it } from 'vitest';
import { exitKindWithProxy } from '../../src/agent/nanocoder-exit.js';

describe('exitKindWithProxy', () => {
  it('upgrades a generic error from the last reply the proxy saw', () => {
    const ctx = {
      status: 400,
      message:
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens.",
    };
    expect(exitKindWithProxy('error', ctx)).toBe('context_exceeded');
    expect(exitKindWithProxy('error', { status: 429, message: 'Too many requests' })).toBe(
      'rate_limited',
    );
    expect(
      exitKindWithProxy('error', { status: 429, message: 'You exceeded your current quota' }),
    ).toBe('quota_exceeded');
  });
  it('never overrides what the agent itself said, nor invents a stop', () => {
    expect(exitKindWithProxy('server_error', { status: 429, message: 'x' })).toBe('server_error');
    expect(exitKindWithProxy('success', { status: 429, message: 'x' })).toBe('success');
    expect(exitKindWithProxy('error', { status: 500, message: 'upstream exploded' })).toBe('error');
    expect(exitKindWithProxy('error', undefined)).toBe('error');
  });
});
