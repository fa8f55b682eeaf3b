import { describe, expect, it } from 'vitest';
import { costText, formatCompactTokens, formatDayLong, formatDayShort, formatEstimate, formatTokens } from './usage-format';

describe('usage as it reads', () => {
  it('labels every amount an estimate, to the cent, or to two digits below a cent', () => {
    expect(formatEstimate(1.234, 'en-US')).toBe('≈ $1.23 est.');
    expect(formatEstimate(0.0071525, 'en-US')).toBe('≈ $0.0072 est.');
    expect(formatEstimate(0, 'en-US')).toBe('≈ $0.00 est.');
    expect(formatEstimate(1234.5, 'en-US')).toBe('≈ $1,234.50 est.');
  });

  it('shows no money for a subscription, and for a model without a price how many tokens it left out', () => {
    expect(costText({ amount: 2.25, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 }, 'en-US')).toBe('≈ $2.25 est.');
    expect(costText({ amount: null, currency: 'USD', basis: 'subscription', unpricedModels: [], unpricedTokens: 0 }, 'en-US')).toBe('Subscription: tokens only');
    expect(costText({ amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1801 }, 'en-US')).toBe('No price: 1,801 tokens');
    // The tokens with no price are carried beside the money, never folded into it as free.
    expect(costText({ amount: 1, currency: 'USD', basis: 'partly_priced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 12_345 }, 'en-US')).toBe('≈ $1.00 est. + 12,345 tokens with no price');
  });

  it('counts tokens in full, and short on an axis', () => {
    expect(formatTokens(1_234_567, 'en-US')).toBe('1,234,567');
    expect(formatCompactTokens(950, 'en-US')).toBe('950');
    expect(formatCompactTokens(1_500_000, 'en-US')).toBe('1.5M');
  });

  it('names a calendar day the same in every time zone', () => {
    expect(formatDayShort('2026-03-02', 'en-US')).toBe('Mar 2');
    expect(formatDayLong('2026-03-02', 'en-US')).toBe('Monday, March 2, 2026');
  });
});
