import { describeConsoleAgent } from './console-suite';

// Claude Code 2.1.197 through the console (see console-suite.ts). The managed connection is
// ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL; the operator's own login is the key `/login` keeps in
// ~/.claude.json (primaryApiKey) and the gateway in ~/.claude/settings.json's env.
describeConsoleAgent('claude-code', {
  keyHeader: 'x-api-key',
  keyValue: (key) => key,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^projects\/[^/]+\/[0-9a-f-]{36}\.jsonl$/,
  outputShows: ['"subtype":"init"', '"type":"result"', 'I will create the file now.'],
  textWholeInOutput: true,
  // "API Error: Request rejected (429) · …": Retry-After is honoured by its own retries, not reported.
  resetObserved: false,
  // A dropped stream is retried once as a non-streaming request, even with CLAUDE_CODE_MAX_RETRIES=0.
  dropsPerAttempt: 2,
  // result.usage: the invocation's calls (cache reads and writes outside input_tokens); thinking is
  // inside output_tokens with no count of its own.
  usageCounting: 'per_invocation',
  reportsReasoning: false,
  operatorLogin: ({ server, apiKey }) => ({
    '.claude.json': `${JSON.stringify({ primaryApiKey: apiKey, hasCompletedOnboarding: true }, null, 2)}\n`,
    '.claude/settings.json': `${JSON.stringify({ env: { ANTHROPIC_BASE_URL: server.origin, DISABLE_AUTOUPDATER: '1' } }, null, 2)}\n`,
  }),
  linkedFiles: { '.claude.json': '.claude.json', 'settings.json': '.claude/settings.json' },
});
