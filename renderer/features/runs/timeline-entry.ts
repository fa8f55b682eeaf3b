import type { RunEvent } from '../../../shared/entities';

/** How one timeline entry reads: a short label, its main text, and optional detail. */
export interface TimelineEntryView {
  label: string;
  text: string;
  detail: string | null;
  tone: 'neutral' | 'progress' | 'success' | 'danger' | 'warning' | 'muted';
  /** The console's own note (retry, resume, quota, …) rather than something the CLI said. */
  consoleNote: boolean;
}

const maxCompactLength = 400;

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function first(data: Record<string, unknown>, ...keys: string[]): string | null {
  for (const key of keys) {
    const value = data[key];
    if (typeof value === 'string' && value.length > 0) return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return null;
}

/** JSON on one line, shortened: for kinds the timeline does not know. */
export function compactJson(value: unknown, max = maxCompactLength): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `retry_scheduled` → `Retry scheduled`. */
export function humanizeKind(kind: string): string {
  const words = kind.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Event';
}

const tokenFormat = new Intl.NumberFormat('en-US');

export function usageText(data: Record<string, unknown>): string {
  const input = num(data.inputTokens) ?? num(data.input_tokens);
  const output = num(data.outputTokens) ?? num(data.output_tokens);
  const cached = num(data.cachedInputTokens) ?? num(data.cached_input_tokens);
  const parts: string[] = [];
  if (input !== null) parts.push(`${tokenFormat.format(input)} in`);
  if (output !== null) parts.push(`${tokenFormat.format(output)} out`);
  if (cached !== null) parts.push(`${tokenFormat.format(cached)} cached`);
  const reasoning = num(data.reasoningTokens);
  if (reasoning !== null && reasoning > 0) parts.push(`${tokenFormat.format(reasoning)} reasoning`);
  if (parts.length === 0) return compactJson(data);
  // The CLI's own report: a session's running total reads differently from one call's figures.
  const scope = data.counting === 'per_session' ? ' (session so far)' : data.counting === 'per_invocation' ? ' (this turn so far)' : '';
  return `${parts.join(' · ')} tokens${scope}`;
}

const messageRoles: Record<string, string> = {
  assistant: 'Message',
  reasoning: 'Reasoning',
  user: 'Prompt',
  system: 'CLI note',
};

const fileChanges: Record<string, string> = {
  add: 'File added',
  update: 'File changed',
  delete: 'File deleted',
  write: 'File written',
};

/** The rest of `data` once the fields shown are taken out, or null when nothing is left. */
function rest(data: Record<string, unknown>, shown: string[]): string | null {
  const remaining = Object.fromEntries(Object.entries(data).filter(([key, value]) => !shown.includes(key) && value !== null));
  return Object.keys(remaining).length > 0 ? compactJson(remaining) : null;
}

/**
 * A timeline entry in words. The CLI's parsed events (message, tool_call, file_change, usage, session,
 * error, raw) read as what happened; the console's own notes (retry_scheduled, quota_observed,
 * fresh_session, resumed, stranded, egress, …) name themselves and say why; anything else shows its data.
 */
export function describeRunEvent(
  event: Pick<RunEvent, 'kind' | 'data'>,
  /** How a timestamp inside an entry reads (the page passes the operator's clock format). */
  time: (iso: string) => string = (iso) => iso,
): TimelineEntryView {
  const { kind, data } = event;
  const view = (label: string, text: string, detail: string | null = null, tone: TimelineEntryView['tone'] = 'neutral', consoleNote = false) => ({
    label,
    text,
    detail,
    tone,
    consoleNote,
  });

  switch (kind) {
    case 'message': {
      const role = str(data.role) ?? 'assistant';
      return view(messageRoles[role] ?? humanizeKind(role), str(data.text) ?? '', null, role === 'reasoning' ? 'muted' : 'neutral');
    }
    case 'tool_call':
      return view('Tool call', str(data.name) ?? 'tool', first(data, 'summary', 'input', 'path', 'command'), 'progress');
    case 'tool_result': {
      const ok = data.ok !== false;
      return view(ok ? 'Tool result' : 'Tool failed', str(data.name) ?? 'tool', first(data, 'summary', 'output'), ok ? 'neutral' : 'danger');
    }
    case 'file_change': {
      const change = str(data.change) ?? str(data.kind) ?? 'update';
      return view(fileChanges[change] ?? 'File changed', first(data, 'path', 'file') ?? compactJson(data), null, 'success');
    }
    case 'usage':
      return view('Usage', usageText(data), null, 'muted');
    case 'session':
      return view('Session', first(data, 'sessionId', 'session_id', 'id') ?? compactJson(data), first(data, 'dir', 'sessionDir'), 'muted');
    case 'error': {
      const facts = [
        str(data.code),
        num(data.httpStatus) !== null ? `HTTP ${num(data.httpStatus)}` : null,
        str(data.resetAt) ? `resets ${str(data.resetAt)}` : null,
      ].filter(Boolean);
      const fatal = data.fatal === true;
      return view(fatal ? 'Error' : 'Warning', first(data, 'message') ?? compactJson(data), facts.length > 0 ? facts.join(' · ') : null, fatal ? 'danger' : 'warning');
    }
    case 'raw':
      return view('Output', str(data.text) ?? '', null, 'muted');
    case 'retry_scheduled': {
      const attempt = num(data.attempt) ?? num(data.nextAttempt);
      const at = str(data.retryAt);
      const text = `${attempt !== null ? `Attempt ${attempt}` : 'Next attempt'}${at ? ` at ${time(at)}` : ''}`;
      const why = [str(data.code), str(data.message) ?? str(data.reason)].filter(Boolean).join(': ');
      return view('Retry scheduled', text, why || null, 'warning', true);
    }
    case 'quota_observed': {
      const who = [first(data, 'provider'), first(data, 'target')].filter(Boolean).join(' · ') || 'Usage limit reached';
      const reset = str(data.resetAt);
      const validUntil = str(data.validUntil);
      const text = reset ? `${who}; resets at ${time(reset)}` : `${who}; no reset time given`;
      return view('Quota reached', text, !reset && validUntil ? `Treated as limited until ${time(validUntil)}` : null, 'warning', true);
    }
    case 'fresh_session': {
      const previous = first(data, 'previousSessionId');
      return view(
        'Fresh session',
        first(data, 'reason', 'message') ?? 'The configuration changed, so the CLI starts a new session.',
        previous ? `Previous session ${previous}` : null,
        'progress',
        true,
      );
    }
    case 'resumed': {
      const session = first(data, 'sessionId');
      return view('Resumed', session ? `Session ${session}` : 'The CLI resumed its session.', first(data, 'prompt', 'message'), 'progress', true);
    }
    case 'stranded':
    case 'run_stranded':
      return view('Stranded', first(data, 'message', 'reason') ?? 'The console stopped while this run was going.', rest(data, ['message', 'reason']), 'warning', true);
    case 'setup_started':
      return view('Setup started', first(data, 'command') ?? 'The project’s setup command', 'The agent starts once it succeeds.', 'progress', true);
    case 'setup_finished':
      return view('Setup finished', 'The project’s setup command succeeded; the agent starts.', null, 'success', true);
    case 'setup_failed': {
      const how = str(data.signal) ? `ended by ${str(data.signal)}` : num(data.exitCode) !== null ? `exit code ${num(data.exitCode)}` : 'it failed';
      return view('Setup failed', `The project’s setup command failed (${how}); the agent did not start.`, null, 'danger', true);
    }
    case 'egress': {
      const allowed = data.allowed === true;
      const target = [first(data, 'method'), [first(data, 'host'), first(data, 'port')].filter(Boolean).join(':')].filter(Boolean).join(' ');
      return view(allowed ? 'Network allowed' : 'Network blocked', target || compactJson(data), null, allowed ? 'muted' : 'danger', true);
    }
    default: {
      const message = first(data, 'message', 'text', 'reason');
      return view(humanizeKind(kind), message ?? compactJson(data), message ? rest(data, ['message', 'text', 'reason']) : null, 'neutral', true);
    }
  }
}
