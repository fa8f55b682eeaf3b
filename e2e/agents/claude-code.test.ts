import { describeAgent } from './agent-suite';

// Claude Code 2.1.197: ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL, no files.
describeAgent('claude-code', {
  keyHeader: 'x-api-key',
  keyValue: (key) => key,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^projects\/[^/]+\/[0-9a-f-]{36}\.jsonl$/,
  exitOn401: 1,
  // "API Error: Request rejected (429) · <message>": Retry-After is honoured but not reported.
  resetObserved: false,
  // A dropped stream is retried once as a non-streaming request, even with CLAUDE_CODE_MAX_RETRIES=0.
  recoversFromOneDrop: true,
});
