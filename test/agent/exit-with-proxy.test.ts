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
    expect(exitKindWithProxy('error', { status: 400, message: 'tools[0] is invalid' })).toBe(
      'error',
    );
    expect(exitKindWithProxy('error', undefined)).toBe('error');
  });
  // Issue 22 §2: every refusal of service is named, so it becomes an infra error, never a score.
  it('names each refusal of service by its status: key, billing, model, rate limit, server', () => {
    const kind = (status: number, message = 'x') => exitKindWithProxy('error', { status, message });
    expect([401, 402, 403, 404, 429, 500, 503].map((s) => kind(s))).toEqual([
      'auth_failed',
      'quota_exceeded',
      'auth_failed',
      'model_not_found',
      'rate_limited',
      'server_error',
      'server_error',
    ]);
    expect(kind(403, 'Quota exceeded for quota metric')).toBe('quota_exceeded');
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
    // A failure the proxy did not classify is still read by its status.
    expect(exitKindWithProxy('error', { status: 429, message: 'x', class: 'other' })).toBe(
      'rate_limited',
    );
    expect(exitKindWithProxy('error', { status: 400, message: 'x', class: 'other' })).toBe('error');
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
    ['Authentication failed: Invalid API key or credentials', 'auth_failed'],
    ['Access forbidden: Check your API permissions', 'auth_failed'],
    ['Model not found: The requested model may not exist or is unavailable', 'model_not_found'],
    ['Request failed (402): Payment required (scripted)', 'quota_exceeded'],
    ['Rate limit exceeded: Too many requests. Please wait and try again', 'rate_limited'],
  ])('%s -> %s', (line, kind) => {
    expect(classifyMessage(line)).toBe(kind);
  });
});
