import { failureTaxonomy } from '../../shared/errors';
import type { TimelineEvent } from './events/timeline-event';
import { clip } from './events/timeline-event';
import type { LaunchProfile } from './launch';
import { parseResetAt } from './reset-time';

/**
 * Gives every failed attempt one code from the failure taxonomy (DESIGN.md section 3), so the run
 * service knows whether to retry, wait for a reset, or stop and raise a notice for the owner.
 *
 * Evidence is read in order of trust: the CLI's own fatal error events, then its other error events,
 * then the plain-text tail of the output (stderr lands there under a PTY). JSON lines in the tail are
 * skipped because they are the model's conversation: an agent that is busy writing a rate limiter
 * must not make its run look rate-limited.
 *
 * The rules here are what every CLI shares (HTTP statuses, the model APIs' own error words, the
 * sandbox); what only one CLI prints is in its definition's `failurePatterns`, passed in per attempt.
 */

export const failureCodes = failureTaxonomy;
export type FailureCode = (typeof failureCodes)[number];

/** Patterns per failure code, tried after (and in the order of) the shared rules for that code. */
export type FailurePatterns = Readonly<Partial<Record<FailureCode, readonly RegExp[]>>>;

/** `retryable`: the run may try again on its own. `ownerAction`: someone must change something first. */
export const failurePolicies: Record<FailureCode, { retryable: boolean; ownerAction: boolean }> = {
  process_exit: { retryable: true, ownerAction: false },
  spawn_failed: { retryable: false, ownerAction: true },
  auth_required: { retryable: false, ownerAction: true },
  auth_expired: { retryable: false, ownerAction: true },
  quota_exhausted: { retryable: true, ownerAction: false },
  rate_limited: { retryable: true, ownerAction: false },
  ai_connection_busy: { retryable: true, ownerAction: false },
  sandbox_unavailable: { retryable: false, ownerAction: true },
  configuration_incomplete: { retryable: false, ownerAction: true },
  // The project's setup command is the owner's to fix; the same command would fail the same way again.
  setup_failed: { retryable: false, ownerAction: true },
  // The data directory's disk is full: another attempt would only fill it again. Free space first.
  disk_full: { retryable: false, ownerAction: true },
  cancelled: { retryable: false, ownerAction: false },
  stranded: { retryable: false, ownerAction: false },
};

/** What the console learned about a provider's limits from one failure. */
export interface QuotaObservation {
  provider: string;
  /** The model the limit applies to. */
  target: string;
  /** When the provider said the limit lifts; null when it did not say. */
  resetAt: string | null;
  observedAt: string;
  /** Until when to treat the target as limited: the reset if known, else a short default window. */
  validUntil: string;
}

export interface AttemptFailure {
  code: FailureCode;
  retryable: boolean;
  ownerAction: boolean;
  /** For the operator: what happened and what to do next. */
  message: string;
  /** The line that decided the code, when one did. */
  evidence: string | null;
  quota: QuotaObservation | null;
}

export interface AttemptExit {
  providerId: string;
  /** Shown in messages; defaults to the provider id. */
  providerName?: string | undefined;
  model: string;
  exitCode: number | null;
  signal?: number | string | null | undefined;
  /** Set when the process could not be started at all (ENOENT, EACCES, ...). */
  spawnError?: { code?: string | undefined; message: string } | null | undefined;
  stoppedByOperator?: boolean | undefined;
  /** The last few kilobytes of the output, as text. */
  outputTail?: string | undefined;
  /** The attempt's parsed timeline events (all, or at least the last ones). */
  events?: readonly TimelineEvent[] | undefined;
  observedAt?: Date | undefined;
  /** Zone for wall-clock reset times that name none. Defaults to the system zone. */
  timeZone?: string | undefined;
  /** The CLI's own patterns (definitions.ts `failurePatternsFor`), tried after the shared ones of each code. */
  cliPatterns?: FailurePatterns | undefined;
}

export interface ClassifierOptions {
  /** How long a rate limit without a stated reset is assumed to last. */
  rateLimitWindowMs?: number;
  /** How long a usage quota without a stated reset is assumed to last before trying again. */
  quotaWindowMs?: number;
}

const defaultRateLimitWindowMs = 60_000;
const defaultQuotaWindowMs = 15 * 60_000;
/** Text limits that the ambiguous "exceeded your current quota" can still be a per-minute limit within. */
const shortLimitMs = 10 * 60_000;

type Rule = { code: FailureCode; patterns: readonly RegExp[] };

// Order matters: the first rule with a matching pattern wins for a piece of evidence.
const sharedRules: Rule[] = [
  {
    code: 'spawn_failed',
    patterns: [/execvp?\b.*: No such file or directory/i, /\bcommand not found\b/i, /^\S+: not found$/m, /spawn \S+ ENOENT/i, /\bEACCES\b/],
  },
  {
    code: 'sandbox_unavailable',
    patterns: [/^bwrap: /m, /\bsandbox-exec: /, /No permissions to create new namespace/i, /setting up uid map: Permission denied/i, /Creating new namespace failed/i],
  },
  {
    code: 'auth_expired',
    patterns: [
      /\btoken (?:has )?expired\b/i,
      /\bexpired (?:oauth |access |refresh )?token\b/i,
      /\binvalid_grant\b/,
      /\bsession expired\b/i,
      /\btoken_expired\b/,
      /\brefresh_token_(?:reused|expired|invalidated)\b/,
      /could not be refreshed/i,
      /\blogin (?:has )?expired\b/i,
    ],
  },
  {
    code: 'auth_required',
    patterns: [
      /\b(?:status:?|error:?|code:?|HTTP)\s*401\b/i,
      /\b401 Unauthorized\b/i,
      /^401\b/,
      /\bunauthori[sz]ed\b/i,
      /\binvalid (?:x-)?api[ _-]?key\b/i,
      /\bincorrect api key\b/i,
      /\binvalid_api_key\b/,
      /\bapi key not valid\b/i,
      /\bAPI_KEY_INVALID\b/,
      /\bauthentication_(?:error|failed)\b/,
      /\bnot logged in\b/i,
      /\b(?:no|missing) api key\b/i,
      /\bapi key (?:is )?(?:required|missing)\b/i,
      /\bcould not resolve authentication method\b/i,
    ],
  },
  {
    code: 'quota_exhausted',
    patterns: [
      /\binsufficient_quota\b/,
      /\busage limit\b/i,
      /\b(?:hit|reached) your (?:[\w']+ ){0,3}limit\b/i,
      /\bexhausted your (?:daily )?quota\b/i,
      /\bdaily quota\b/i,
      /\bquota exceeded\b/i,
      /\bexceeded your current quota\b/i,
      /\bcredit balance is too low\b/i,
      /\bout of (?:usage )?credits\b/i,
      /\bspend limit\b/i,
      /\bexhausted your capacity\b/i,
    ],
  },
  {
    code: 'rate_limited',
    patterns: [
      /\b(?:status:?|error:?|code:?|HTTP)\s*429\b/i,
      /^429\b/,
      /\b429 Too Many Requests\b/i,
      /\btoo many requests\b/i,
      /\brate[ _-]?limit(?:ed|s)?\b/i,
      /\bRESOURCE_EXHAUSTED\b/,
      /\boverloaded(?:_error)?\b/i,
      /\b529\b/,
    ],
  },
  {
    code: 'configuration_incomplete',
    patterns: [
      /\bmodel_not_found\b/,
      // Not "Model metadata for `x` not found": Codex's warning for models it has no metadata for.
      /\bthe model `?[\w./:-]+`? (?:does not exist|is not supported|is not available)/i,
      /\bmodels\/[\w.-]+ is not found\b/i,
      /\bnot_found_error\b.{0,40}\bmodel\b/i,
      /\bunknown model\b/i,
      /\binvalid model\b/i,
    ],
  },
];

/**
 * Classifies one finished attempt. Returns null when the attempt succeeded: exit code 0 and no fatal
 * error after the CLI's last answer (Pi, for one, exits 0 when the model call failed).
 */
export function classifyAttempt(exit: AttemptExit, options: ClassifierOptions = {}): AttemptFailure | null {
  const name = exit.providerName ?? exit.providerId;
  const events = exit.events ?? [];
  const observedAt = exit.observedAt ?? new Date();

  if (exit.stoppedByOperator) return failure('cancelled', 'The operator stopped the run.', null, null);

  if (exit.spawnError) {
    const detail = exit.spawnError.code ? `${exit.spawnError.code}: ${exit.spawnError.message}` : exit.spawnError.message;
    return failure('spawn_failed', spawnMessage(name, detail), clip(detail, 300), null);
  }

  const exitedCleanly = exit.exitCode === 0 && !exit.signal;
  if (exitedCleanly && !endsInFatalError(events)) return null;

  const evidence = evidenceTexts(events, exit.outputTail ?? '');
  const structuredCode = codeFromStructuredEvents(events);
  const rules = withCliPatterns(exit.cliPatterns);
  let decided: { code: FailureCode; text: string | null } | null = null;
  for (const text of evidence) {
    const code = matchRules(rules, text);
    if (code) {
      decided = { code, text };
      break;
    }
  }
  if (!decided && structuredCode) decided = { code: structuredCode, text: null };
  if (!decided && (exit.exitCode === 127 || exit.exitCode === 126)) {
    decided = { code: 'spawn_failed', text: `exit code ${exit.exitCode}` };
  }

  if (decided && (decided.code === 'quota_exhausted' || decided.code === 'rate_limited')) {
    const resetAt = resetFrom(events, decided.text, evidence, observedAt, exit.timeZone);
    let code = decided.code;
    // OpenAI says "exceeded your current quota" for billing; Gemini says it for per-minute limits,
    // with a short "Please retry in 32.5s". A short stated reset means a rate limit.
    if (code === 'quota_exhausted' && decided.text && /exceeded your current quota/i.test(decided.text)) {
      if (resetAt && resetAt.getTime() - observedAt.getTime() <= shortLimitMs && !/daily|per ?day/i.test(decided.text)) {
        code = 'rate_limited';
      }
    }
    const windowMs = code === 'rate_limited' ? (options.rateLimitWindowMs ?? defaultRateLimitWindowMs) : (options.quotaWindowMs ?? defaultQuotaWindowMs);
    const quota: QuotaObservation = {
      provider: exit.providerId,
      target: exit.model,
      resetAt: resetAt?.toISOString() ?? null,
      observedAt: observedAt.toISOString(),
      validUntil: (resetAt ?? new Date(observedAt.getTime() + windowMs)).toISOString(),
    };
    const message =
      code === 'quota_exhausted'
        ? `${name} reached its usage quota for ${exit.model}${resetAt ? `; it resets at ${quota.resetAt}` : ''}. The run waits for the reset, or run the task on another agent.`
        : `${name} was rate limited by the model provider for ${exit.model}${resetAt ? ` until ${quota.resetAt}` : ''}. The run retries when the limit lifts.`;
    return failure(code, message, decided.text, quota);
  }

  if (decided) {
    const detail = decided.text ? `: ${clip(decided.text, 300)}` : '.';
    const messages: Partial<Record<FailureCode, string>> = {
      spawn_failed: spawnMessage(name, decided.text ?? 'not found'),
      sandbox_unavailable: `The OS sandbox could not start ${name}${detail} Check the sandbox notice in Settings, or run the agent in a local environment.`,
      auth_expired: `${name}'s login has expired${detail} Renew the agent's AI connection (or log in again for a preconfigured home), then run the task again.`,
      auth_required: `${name} was refused by the model provider: its credentials are missing or invalid${detail} Check the agent's AI connection, then run the task again.`,
      configuration_incomplete: `${name} refused its configuration${detail} Fix the agent's model or launch profile, then run the task again.`,
    };
    const message = messages[decided.code] ?? `${name} failed${detail}`;
    return failure(decided.code, message, decided.text === null ? null : clip(decided.text, 300), null);
  }

  const how =
    exit.signal !== null && exit.signal !== undefined && exit.signal !== 0
      ? `was killed by signal ${exit.signal}`
      : exit.exitCode === 0
        ? 'finished, but its last step failed'
        : `exited with code ${exit.exitCode ?? 'unknown'}`;
  const lastError = [...events].reverse().find((event) => event.kind === 'error');
  const detail = lastError?.kind === 'error' ? clip(lastError.message, 300) : null;
  // No "it will try again" here: whether it does is the retry policy's answer (retryDelayMs), and the
  // last attempt's failure is the run's own.
  return failure('process_exit', `${name} ${how}${detail ? `: ${detail}` : '.'}`, detail, null);
}

function failure(code: FailureCode, message: string, evidence: string | null, quota: QuotaObservation | null): AttemptFailure {
  return { code, ...failurePolicies[code], message, evidence, quota };
}

function spawnMessage(name: string, detail: string): string {
  return `${name} could not be started (${clip(detail, 300)}). Install the CLI or fix its executable in the provider catalog, then run the task again.`;
}

/** True when the last fatal error comes after the CLI's last answer or tool result. */
function endsInFatalError(events: readonly TimelineEvent[]): boolean {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (!event) continue;
    if (event.kind === 'error' && event.fatal) return true;
    if ((event.kind === 'message' && event.role === 'assistant') || event.kind === 'tool_result') return false;
  }
  return false;
}

/** Candidate texts, most trusted first: fatal errors (latest first), other errors, then plain tail lines. */
function evidenceTexts(events: readonly TimelineEvent[], outputTail: string): string[] {
  const errors = events.filter((event): event is Extract<TimelineEvent, { kind: 'error' }> => event.kind === 'error').reverse();
  const describe = (event: Extract<TimelineEvent, { kind: 'error' }>) =>
    [event.message, event.code, event.httpStatus === null ? null : `status ${event.httpStatus}`].filter(Boolean).join(' ');
  const fatal = errors.filter((event) => event.fatal).map(describe);
  const other = errors.filter((event) => !event.fatal).map(describe);
  const tail = outputTail
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !looksLikeJsonObject(line))
    .slice(-40)
    .reverse();
  return [...fatal, ...other, ...tail];
}

function looksLikeJsonObject(line: string): boolean {
  if (!line.startsWith('{') || !line.endsWith('}')) return false;
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** The codes evidence can decide, in the order they are tried; a CLI's patterns must be for one of these. */
export const evidenceCodes: readonly FailureCode[] = sharedRules.map((rule) => rule.code);

/** The shared rules, each followed by the CLI's own patterns for its code (in the shared rules' order). */
function withCliPatterns(cliPatterns: FailurePatterns | undefined): Rule[] {
  if (!cliPatterns) return sharedRules;
  return sharedRules.map((rule) => ({ code: rule.code, patterns: [...rule.patterns, ...(cliPatterns[rule.code] ?? [])] }));
}

function matchRules(rules: readonly Rule[], text: string): FailureCode | null {
  for (const rule of rules) {
    if (rule.patterns.some((pattern) => pattern.test(text))) return rule.code;
  }
  return null;
}

/** HTTP statuses the CLI reported without words a rule recognises. */
function codeFromStructuredEvents(events: readonly TimelineEvent[]): FailureCode | null {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.kind !== 'error' || event.httpStatus === null) continue;
    if (event.httpStatus === 401) return 'auth_required';
    if (event.httpStatus === 429) return 'rate_limited';
  }
  return null;
}

function resetFrom(
  events: readonly TimelineEvent[],
  decidingText: string | null,
  evidence: string[],
  observedAt: Date,
  timeZone: string | undefined,
): Date | null {
  // A reset the CLI reported as data (Claude's rate_limit_event) beats one read from prose.
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.kind === 'error' && event.resetAt !== null) {
      const date = new Date(event.resetAt);
      if (!Number.isNaN(date.getTime())) return date;
    }
  }
  const texts = decidingText === null ? evidence : [decidingText, ...evidence.filter((text) => text !== decidingText)];
  for (const text of texts) {
    const resetAt = parseResetAt(text, observedAt, { timeZone });
    if (resetAt) return resetAt;
  }
  return null;
}

export interface RetryOptions {
  /** Upper bound for exponential backoff. */
  maxBackoffMs?: number;
  /** Added after a stated reset so the retry does not land on the boundary. */
  resetMarginMs?: number;
}

/**
 * How long to wait before the next attempt, or null for no retry. `attemptNumber` is the number of the
 * attempt that just failed (1-based); the profile's maxAttempts bounds the total.
 *   process_exit, ai_connection_busy → exponential backoff from the profile's base
 *   quota_exhausted, rate_limited    → until the observed reset (or its assumed window)
 *   owner actions, cancelled, stranded → null: never retried blindly
 */
export function retryDelayMs(
  failure: Pick<AttemptFailure, 'code' | 'quota'>,
  attemptNumber: number,
  profile: Pick<LaunchProfile, 'maxAttempts' | 'retryBackoffBaseMs'>,
  now: number = Date.now(),
  options: RetryOptions = {},
): number | null {
  if (!failurePolicies[failure.code].retryable) return null;
  if (attemptNumber >= profile.maxAttempts) return null;
  const backoff = Math.min(profile.retryBackoffBaseMs * 2 ** Math.max(0, attemptNumber - 1), options.maxBackoffMs ?? 10 * 60_000);
  switch (failure.code) {
    case 'quota_exhausted':
    case 'rate_limited': {
      if (!failure.quota) return backoff;
      const until = Date.parse(failure.quota.validUntil);
      if (Number.isNaN(until)) return backoff;
      return Math.max(until - now, 0) + (options.resetMarginMs ?? 1000);
    }
    default:
      return backoff;
  }
}
