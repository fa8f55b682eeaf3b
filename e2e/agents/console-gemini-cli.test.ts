import { describeConsoleAgent } from './console-suite';

// Gemini CLI 0.61.0 through the console (see console-suite.ts). The managed connection is
// GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL + .gemini/settings.json; the operator's own login is
// ~/.gemini/settings.json (API-key auth) and the key and gateway in ~/.gemini/.env.
describeConsoleAgent('gemini-cli', {
  keyHeader: 'x-goog-api-key',
  keyValue: (key) => key,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^\.gemini\/tmp\/.+\/chats\/.+\.json/,
  outputShows: ['"type":"init"', '"type":"result"', '"status":"success"'],
  // The model's text arrives in pieces ("delta": true); the timeline joins them.
  textWholeInOutput: false,
  // "… Please retry in 2.5s." and RetryInfo pass through Gemini CLI's error.
  resetObserved: true,
  dropsPerAttempt: 1,
  // result.stats: the invocation's calls (a headless resume does not restore the session's); the thoughts
  // are total_tokens beyond input and output.
  usageCounting: 'per_invocation',
  reportsReasoning: true,
  operatorLogin: ({ server, apiKey }) => ({
    '.gemini/settings.json': `${JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      },
      null,
      2,
    )}\n`,
    '.gemini/.env': `GEMINI_API_KEY=${apiKey}\nGOOGLE_GEMINI_BASE_URL=${server.origin}\n`,
  }),
  linkedFiles: { '.gemini/settings.json': '.gemini/settings.json', '.gemini/.env': '.gemini/.env' },
});
