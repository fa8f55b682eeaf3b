import { describeConsoleAgent } from './console-suite';

// Pi 0.73.1 through the console (see console-suite.ts). The managed connection is a custom
// OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json (the key in an env variable); the
// operator's own login is ~/.pi/agent/auth.json (the key for `openai`) and ~/.pi/agent/models.json
// routing the built-in openai provider to the local server.
describeConsoleAgent('pi', {
  keyHeader: 'authorization',
  keyValue: (key) => `Bearer ${key}`,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^sessions\/.+\.jsonl$/,
  outputShows: ['"type":"session"', '"type":"agent_end"', 'I will create the file now.'],
  textWholeInOutput: true,
  // "… Please try again in 2s." passes through Pi's stream.
  resetObserved: true,
  dropsPerAttempt: 1,
  // message_end: one call (cacheRead outside input); Pi keeps no reasoning count of its own.
  usageCounting: 'per_call',
  reportsReasoning: false,
  operatorLogin: ({ server, apiKey }) => ({
    '.pi/agent/auth.json': `${JSON.stringify({ openai: { type: 'api_key', key: apiKey } }, null, 2)}\n`,
    '.pi/agent/models.json': `${JSON.stringify(
      {
        providers: {
          openai: {
            baseUrl: server.baseUrl,
            api: 'openai-completions',
            models: [{ id: 'gpt-5.5', name: 'GPT-5.5 (local server)', reasoning: false, input: ['text'], contextWindow: 200000, maxTokens: 32000 }],
          },
        },
      },
      null,
      2,
    )}\n`,
  }),
  linkedFiles: { 'auth.json': '.pi/agent/auth.json', 'models.json': '.pi/agent/models.json' },
});
