import { addTokens, noTokens, type TokenCounts, type UsageCounting } from '../../shared/usage';
import type { TimelineEvent } from '../providers/events/timeline-event';

export type UsageEvent = Extract<TimelineEvent, { kind: 'usage' }>;

/** The most tokens one report may claim: far above any real turn, far below where sums lose precision. */
export const maxReportedTokens = 1e12;

/**
 * A count as the run printed it, made a count: the run's output is hostile input (DESIGN.md section 4),
 * so a negative, fractional, absurd or missing number must not reach the ledger, where it would make
 * every report that sums it invalid.
 */
function tokenCount(value: number | null): number {
  if (value === null || !Number.isFinite(value) || value <= 0) return 0;
  return Math.min(Math.round(value), maxReportedTokens);
}

/** A usage event's counts as token counts (what the CLI did not say counts as none). */
export function reportTokens(report: UsageEvent): TokenCounts {
  return {
    input: tokenCount(report.inputTokens),
    output: tokenCount(report.outputTokens),
    cachedInput: tokenCount(report.cachedInputTokens),
    reasoning: tokenCount(report.reasoningTokens),
  };
}

/**
 * What a session's running total added since `baseline` (the total an earlier attempt of the run
 * left for the same session). A total below the baseline is a counter that started again (a fresh
 * session the CLI gave the same name, a CLI that lost its state): all of it is new. A running total
 * never shrinks, so input or output below the baseline is how that shows.
 */
export function sessionShare(total: TokenCounts, baseline: TokenCounts | null): TokenCounts {
  if (!baseline || total.input < baseline.input || total.output < baseline.output) return total;
  return {
    input: total.input - baseline.input,
    output: total.output - baseline.output,
    cachedInput: Math.max(0, total.cachedInput - baseline.cachedInput),
    reasoning: Math.max(0, total.reasoning - baseline.reasoning),
  };
}

/**
 * One attempt's usage reports, turned into the attempt's tokens by how each was counted
 * (shared/usage.ts `usageCountings`): `per_call` reports are summed, of `per_invocation` reports the
 * last counts (it covers the ones before it), and of `per_session` reports the last counts less what
 * the session had before this attempt. A CLI prints one kind; if a stream mixed them, each kind is
 * counted its own way and the shares added.
 */
export class AttemptUsageCounter {
  private reportCount = 0;
  private firstCounting: UsageCounting | null = null;
  private calls: TokenCounts = noTokens;
  private invocation: TokenCounts | null = null;
  private session: TokenCounts | null = null;

  add(report: UsageEvent): void {
    this.reportCount += 1;
    this.firstCounting ??= report.counting;
    const tokens = reportTokens(report);
    if (report.counting === 'per_call') this.calls = addTokens(this.calls, tokens);
    else if (report.counting === 'per_invocation') this.invocation = tokens;
    else this.session = tokens;
  }

  get reports(): number {
    return this.reportCount;
  }

  /** How the attempt's reports were counted: the counting of its CLI's reports. */
  get counting(): UsageCounting | null {
    return this.firstCounting;
  }

  /** The session's total as the CLI last reported it (`per_session` reports only), for the next attempt's baseline. */
  get sessionTotal(): TokenCounts | null {
    return this.session;
  }

  /** The attempt's tokens; `sessionBaseline` is what the session had before this attempt (per_session). */
  tokens(sessionBaseline: TokenCounts | null): TokenCounts {
    let tokens = this.calls;
    if (this.invocation) tokens = addTokens(tokens, this.invocation);
    if (this.session) tokens = addTokens(tokens, sessionShare(this.session, sessionBaseline));
    return tokens;
  }
}
