import { describe, expect, it } from 'vitest';
import type { UsageCounting } from '../../shared/usage';
import { tokenCountsSchema } from '../../shared/usage';
import { AttemptUsageCounter, maxReportedTokens, sessionShare, type UsageEvent } from './usage-counter';

const report = (counting: UsageCounting, input: number, output: number, cachedInput: number | null = null, reasoning: number | null = null): UsageEvent => ({
  kind: 'usage',
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: cachedInput,
  reasoningTokens: reasoning,
  counting,
});

function count(reports: UsageEvent[]) {
  const counter = new AttemptUsageCounter();
  for (const entry of reports) counter.add(entry);
  return counter;
}

describe('an attempt counted from its CLI reports', () => {
  it('a run that prints negative, fractional or absurd counts records sane ones: its output is hostile input, and the Usage report must still answer', () => {
    const counter = count([report('per_call', -500, 12.6, Number.NaN, 1e300), report('per_call', 1e30, 0, -1)]);
    const tokens = counter.tokens(null);
    expect(tokens).toEqual({ input: maxReportedTokens, output: 13, cachedInput: 0, reasoning: maxReportedTokens });
    expect(tokenCountsSchema.safeParse(tokens).success).toBe(true);
  });

  it('per_call: every call is its own, so they are summed (Pi)', () => {
    const counter = count([report('per_call', 1000, 50, 100), report('per_call', 1100, 20, 120), report('per_call', 900, 10)]);
    expect(counter.tokens(null)).toEqual({ input: 3000, output: 80, cachedInput: 220, reasoning: 0 });
    expect(counter.reports).toBe(3);
    expect(counter.counting).toBe('per_call');
    expect(counter.sessionTotal).toBeNull();
  });

  it('per_invocation: each report covers the process so far, so the last one counts (Claude Code, Gemini CLI)', () => {
    const counter = count([report('per_invocation', 2000, 40, 200, 5), report('per_invocation', 5400, 75, 300, 9)]);
    expect(counter.tokens(null)).toEqual({ input: 5400, output: 75, cachedInput: 300, reasoning: 9 });
    expect(counter.counting).toBe('per_invocation');
  });

  it('per_session: the last running total less what the session had before this attempt (Codex)', () => {
    const counter = count([report('per_session', 4550, 98, 176, 7), report('per_session', 9227, 204, 416, 18)]);
    expect(counter.sessionTotal).toEqual({ input: 9227, output: 204, cachedInput: 416, reasoning: 18 });
    // A fresh session: all of it is this attempt's.
    expect(counter.tokens(null)).toEqual({ input: 9227, output: 204, cachedInput: 416, reasoning: 18 });
    // A resumed one: only what this attempt added to the earlier turn's total.
    expect(counter.tokens({ input: 4550, output: 98, cachedInput: 176, reasoning: 7 })).toEqual({ input: 4677, output: 106, cachedInput: 240, reasoning: 11 });
  });

  it('no reports: nothing used, nothing said about how', () => {
    const counter = count([]);
    expect(counter.tokens(null)).toEqual({ input: 0, output: 0, cachedInput: 0, reasoning: 0 });
    expect(counter.counting).toBeNull();
    expect(counter.reports).toBe(0);
  });

  it('a stream that mixes countings counts each its own way', () => {
    const counter = count([report('per_call', 100, 10), report('per_invocation', 500, 50), report('per_call', 100, 10), report('per_invocation', 700, 70), report('per_session', 3000, 30)]);
    expect(counter.tokens({ input: 1000, output: 10, cachedInput: 0, reasoning: 0 })).toEqual({ input: 200 + 700 + 2000, output: 20 + 70 + 20, cachedInput: 0, reasoning: 0 });
    expect(counter.counting).toBe('per_call');
  });
});

describe('a session total against the baseline', () => {
  const baseline = { input: 4000, output: 100, cachedInput: 300, reasoning: 10 };

  it('counts what the session added', () => {
    expect(sessionShare({ input: 6000, output: 150, cachedInput: 500, reasoning: 12 }, baseline)).toEqual({ input: 2000, output: 50, cachedInput: 200, reasoning: 2 });
  });

  it('counts a total below the baseline whole: the CLI\'s counter started again', () => {
    expect(sessionShare({ input: 3000, output: 120, cachedInput: 100, reasoning: 0 }, baseline)).toEqual({ input: 3000, output: 120, cachedInput: 100, reasoning: 0 });
    expect(sessionShare({ input: 5000, output: 90, cachedInput: 100, reasoning: 0 }, baseline)).toEqual({ input: 5000, output: 90, cachedInput: 100, reasoning: 0 });
  });

  it('never counts a part below nothing (a CLI that stopped reporting reasoning)', () => {
    expect(sessionShare({ input: 5000, output: 150, cachedInput: 300, reasoning: 0 }, baseline)).toEqual({ input: 1000, output: 50, cachedInput: 0, reasoning: 0 });
  });

  it('a turn that used nothing adds nothing', () => {
    expect(sessionShare(baseline, baseline)).toEqual({ input: 0, output: 0, cachedInput: 0, reasoning: 0 });
  });
});
