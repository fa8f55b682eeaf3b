import { describeAgent } from './agent-suite';

// Gemini CLI 0.61.0: GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL + .gemini/settings.json selecting API-key auth.
describeAgent('gemini-cli', {
  keyHeader: 'x-goog-api-key',
  keyValue: (key) => key,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^\.gemini\/tmp\/.+\/chats\/.+\.json/,
  exitOn401: 'nonzero',
  resetObserved: true,
  recoversFromOneDrop: false,
  // A wrong key is HTTP 400 API_KEY_INVALID from the real Gemini API.
  invalidKeyStatus: 400,
});
