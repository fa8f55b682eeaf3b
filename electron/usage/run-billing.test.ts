import { describe, expect, it } from 'vitest';
import { billingOf, priceProviderOf } from './run-billing';

describe('how a run is billed', () => {
  it('a delivered API key bills per token; a subscription token is the plan\'s; no connection is the operator\'s own login', () => {
    expect(billingOf({ method: 'api_key' })).toBe('api_key');
    expect(billingOf({ method: 'subscription_token' })).toBe('subscription');
    expect(billingOf(null)).toBe('operator_login');
  });
});

describe('whose prices a run\'s tokens are looked up in', () => {
  const codex = { connectionProviders: ['openai', 'openrouter', 'custom'] as const };
  const pi = { connectionProviders: ['anthropic', 'openai', 'google', 'openrouter', 'custom'] as const };

  it('the delivered connection\'s provider: the API its key bills', () => {
    expect(priceProviderOf({ provider: 'openrouter' }, codex, 'gpt-5.5')).toBe('openrouter');
    expect(priceProviderOf({ provider: 'custom' }, pi, 'openai/gpt-5.5')).toBe('custom');
  });

  it('without one, the API the CLI speaks by itself', () => {
    expect(priceProviderOf(null, codex, 'gpt-5.5')).toBe('openai');
    expect(priceProviderOf(null, { connectionProviders: ['google', 'custom'] }, 'gemini-2.5-pro')).toBe('google');
  });

  it('Pi, which speaks to several: the provider its model names, else its first', () => {
    expect(priceProviderOf(null, pi, 'openai/gpt-5.5')).toBe('openai');
    expect(priceProviderOf(null, pi, 'google/gemini-3.1-pro-preview')).toBe('google');
    expect(priceProviderOf(null, pi, 'claude-sonnet-4-6')).toBe('anthropic');
    // A prefix the CLI cannot use is part of a gateway's model name, not a provider.
    expect(priceProviderOf(null, pi, 'meta-llama/llama-4')).toBe('anthropic');
  });

  it('a provider the catalog no longer has: the model\'s prefix, else custom', () => {
    expect(priceProviderOf(null, undefined, 'anthropic/claude-sonnet-4-6')).toBe('anthropic');
    expect(priceProviderOf(null, undefined, 'llama')).toBe('custom');
  });
});
