// Issue #6: the proxy's record of the last reply feeds the context/rate-limit rule when the
// agent's own output only says "error".
import { describe, expect, it } from 'vitest';
import { classifyMessage, exitKindWithProxy } from '../../src/agent/nanocoder-exit.js';

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
  it("uses the proxy's own reading of the failure in its provider's format when it has one", () => {
    // Anthropic answers an empty credit balance with a 400 Nanocoder only calls "Bad request".
    const credit = {
      status: 400,
      message: 'Your credit balance is too low to access the Anthropic API.',
      class: 'quota',
    };
    expect(exitKindWithProxy('error', credit)).toBe('quota_exceeded');
    expect(exitKindWithProxy('error', { status: 400, message: 'x', class: 'context_length' })).toBe(
      'context_exceeded',
    );
    expect(exitKindWithProxy('error', { status: 429, message: 'x', class: 'rate_limit' })).toBe(
      'rate_limited',
    );
    // A classified failure that is not a stop stays an error, whatever the status says.
    expect(exitKindWithProxy('error', { status: 429, message: 'x', class: 'other' })).toBe('error');
  });
});

describe("Nanocoder's stderr in each provider format (seen from the real 1.30 binary)", () => {
  it.each([
    [
      'Bad request: prompt is too long: 8193 tokens > 8192 maximum\nURL: http://127.0.0.1:1/trial/x/v1/messages',
      'context_exceeded',
    ],
    // Anthropic's error event inside a stream: Nanocoder calls it a server error.
    ['Server error: prompt is too long: 8193 tokens > 8192 maximum', 'context_exceeded'],
    [
      'Bad request: The input token count (8193) exceeds the maximum number of tokens allowed (8192).',
      'context_exceeded',
    ],
    ['Request failed (529): Overloaded', 'server_error'],
    [
      'Rate limit: You exceeded your current quota, please check your plan and billing details.',
      'quota_exceeded',
    ],
  ])('%s -> %s', (line, kind) => {
    expect(classifyMessage(line)).toBe(kind);
  });
});
