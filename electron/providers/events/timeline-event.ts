import type { UsageCounting } from '../../../shared/usage';

/**
 * The normalized timeline a run shows beside its terminal. Each CLI's JSON stream is mapped onto these
 * few kinds; anything a parser does not understand becomes `raw` so that nothing the CLI said is lost.
 * Long texts are clipped: the timeline is a summary, the ledger keeps every byte.
 */
export type TimelineEvent =
  /** `reasoning`: the model's visible thinking; `system`: the CLI's own notes (plans, retries). */
  | { kind: 'message'; role: 'assistant' | 'reasoning' | 'user' | 'system'; text: string }
  | { kind: 'tool_call'; callId: string | null; name: string; input: string }
  | { kind: 'tool_result'; callId: string | null; name: string | null; ok: boolean; output: string }
  /** `write`: the file was created or overwritten, and the CLI does not say which. */
  | { kind: 'file_change'; path: string; change: 'add' | 'update' | 'delete' | 'write' }
  /**
   * Tokens as the CLI reported them, normalized (shared/usage.ts): `inputTokens` counts every input
   * token, cached ones included; `outputTokens` every output token, reasoning included. Null: the CLI
   * does not say. `counting` says what one report covers (one call, the process so far, the whole
   * session so far): the usage recorder turns the reports into the attempt's share by it.
   */
  | {
      kind: 'usage';
      inputTokens: number;
      outputTokens: number;
      cachedInputTokens: number | null;
      reasoningTokens: number | null;
      counting: UsageCounting;
    }
  | { kind: 'session'; sessionId: string }
  | {
      kind: 'error';
      message: string;
      /** True when the CLI gave up the turn on this error (as opposed to a warning or a retried call). */
      fatal: boolean;
      /** The CLI's own error code or type, when it gives one (authentication_failed, rate_limit, ...). */
      code: string | null;
      httpStatus: number | null;
      /** When the CLI reported the limit lifts (ISO 8601), e.g. from Claude's rate_limit_event. */
      resetAt: string | null;
    }
  | { kind: 'raw'; text: string };

export type TimelineEventKind = TimelineEvent['kind'];

export const maxTextLength = 4000;

export function clip(text: string, max = maxTextLength): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

export function raw(line: string): TimelineEvent {
  return { kind: 'raw', text: clip(line) };
}

export function errorEvent(
  message: string,
  fatal: boolean,
  extra: { code?: string | null; httpStatus?: number | null; resetAt?: string | null } = {},
): TimelineEvent {
  return {
    kind: 'error',
    message: clip(message),
    fatal,
    code: extra.code ?? null,
    httpStatus: extra.httpStatus ?? null,
    resetAt: extra.resetAt ?? null,
  };
}

/** Tool inputs are shown as compact JSON (or the string itself). */
export function describeInput(input: unknown): string {
  if (typeof input === 'string') return clip(input);
  try {
    return clip(JSON.stringify(input) ?? '');
  } catch {
    return '';
  }
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Per-attempt memory a parser needs: tool calls to pair a result with (name, file path), and the
 * assistant text a CLI is still streaming in pieces (Gemini CLI's `"delta": true` messages), which
 * becomes one message event once the piece after it is something else.
 */
export interface ParserState {
  toolCalls: Map<string, { name: string; input: unknown }>;
  pendingMessage: { role: 'assistant' | 'reasoning' | 'user' | 'system'; text: string } | null;
}

export function newParserState(): ParserState {
  return { toolCalls: new Map(), pendingMessage: null };
}

/** Adds a streamed piece of a message; returns the message it completes when the role changed. */
export function appendMessagePiece(state: ParserState, role: NonNullable<ParserState['pendingMessage']>['role'], text: string): TimelineEvent[] {
  if (state.pendingMessage && state.pendingMessage.role === role) {
    state.pendingMessage.text += text;
    return [];
  }
  const done = takePendingMessage(state);
  state.pendingMessage = { role, text };
  return done;
}

/** The message being streamed, complete now (the next line is something else, or the output ended). */
export function takePendingMessage(state: ParserState): TimelineEvent[] {
  const pending = state.pendingMessage;
  state.pendingMessage = null;
  if (!pending || pending.text.trim() === '') return [];
  return [{ kind: 'message', role: pending.role, text: clip(pending.text) }];
}

/** A count a CLI reported: a whole number of at least 0, or null when it is missing or not a number. */
export function tokenCount(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.max(0, Math.round(n));
}

/** A usage event, its counts already normalized by the parser (input with cached, output with reasoning). */
export function usageEvent(
  counting: UsageCounting,
  tokens: { input: number; output: number; cachedInput: number | null; reasoning: number | null },
): TimelineEvent {
  return {
    kind: 'usage',
    inputTokens: Math.max(0, Math.round(tokens.input)),
    outputTokens: Math.max(0, Math.round(tokens.output)),
    cachedInputTokens: tokens.cachedInput,
    reasoningTokens: tokens.reasoning,
    counting,
  };
}
