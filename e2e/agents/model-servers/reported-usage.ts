/**
 * The token usage each scripted answer reports. The numbers differ from request to request (by the
 * request's size and its sequence number), so that a test can tell a CLI that reports each call from
 * one that reports a running total, and none of the four kinds (input, cached input, output,
 * reasoning) is a constant that a wrong sum could match by chance. Each protocol writes them in its
 * own wire shape (what is included in what differs); `RecordedRequest.usage` keeps them normalized,
 * the way the console counts (shared/usage.ts: input includes cached input, output includes
 * reasoning), so a test can sum what an attempt's requests reported and compare.
 */
export interface ReportedUsage {
  /** Every input token, cache reads and cache writes included. */
  input: number;
  /** The part of `input` read from the cache. */
  cachedInput: number;
  /** The part of `input` written to the cache (Anthropic's cache_creation_input_tokens; 0 elsewhere). */
  cacheWrite: number;
  /** Every output token, reasoning included. */
  output: number;
  /** The part of `output` spent thinking (0 where the protocol has no such count: Anthropic). */
  reasoning: number;
}

export interface UsageShape {
  /** The protocol's base input count (it differs per protocol so a mix-up shows). */
  baseInput: number;
  /** The visible output of the answer (text and tool call), before reasoning. */
  visibleOutput: number;
  /** Whether the protocol reports reasoning tokens apart. */
  reasoning: boolean;
  /** Whether the protocol reports cache writes apart (Anthropic). */
  cacheWrite: boolean;
}

export function scriptedUsage(record: { seq: number; rawBody: string }, shape: UsageShape): ReportedUsage {
  const n = record.seq + 1;
  const cachedInput = 64 + 16 * (n % 8);
  const cacheWrite = shape.cacheWrite ? 8 * (1 + (n % 4)) : 0;
  const input = shape.baseInput + Math.min(record.rawBody.length >> 6, 50_000) + 7 * n + cachedInput + cacheWrite;
  const reasoning = shape.reasoning ? 2 + (n % 5) : 0;
  const output = shape.visibleOutput + (n % 7) + reasoning;
  return { input, cachedInput, cacheWrite, output, reasoning };
}

/**
 * What a set of requests reported, summed, in the console's terms (shared/usage.ts TokenCounts): what
 * the console must have recorded for an attempt whose model requests these were.
 */
export function sumReportedUsage(requests: ReadonlyArray<{ usage: ReportedUsage | null }>): { input: number; output: number; cachedInput: number; reasoning: number } {
  const total = { input: 0, output: 0, cachedInput: 0, reasoning: 0 };
  for (const { usage } of requests) {
    if (!usage) continue;
    total.input += usage.input;
    total.output += usage.output;
    total.cachedInput += usage.cachedInput;
    total.reasoning += usage.reasoning;
  }
  return total;
}
