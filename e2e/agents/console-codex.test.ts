import { describeConsoleAgent } from './console-suite';

// Codex CLI 0.171.0 through the console (see console-suite.ts). The managed connection is a custom
// Responses-API provider in CODEX_HOME/config.toml reading CODEX_API_KEY; the operator's own login is
// ~/.codex/auth.json (what `codex login --with-api-key` writes) and a gateway provider in
// ~/.codex/config.toml that signs in with it (requires_openai_auth).
describeConsoleAgent('codex', {
  keyHeader: 'authorization',
  keyValue: (key) => `Bearer ${key}`,
  // Code mode (gpt-6.x): the patch shows as a file_change item, no tool item.
  workEvents: ['file_change'],
  sessionState: /^sessions\/.+\/rollout-.+\.jsonl$/,
  outputShows: ['"type":"thread.started"', '"type":"turn.completed"', 'I will create the file now.'],
  textWholeInOutput: true,
  // "exceeded retry limit, last status: 429 Too Many Requests": the body and Retry-After are dropped.
  resetObserved: false,
  dropsPerAttempt: 1,
  // turn.completed: the thread's running total, restored on `exec resume`; reasoning_output_tokens apart.
  usageCounting: 'per_session',
  reportsReasoning: true,
  operatorLogin: ({ server, apiKey, model }) => ({
    '.codex/auth.json': `${JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: apiKey }, null, 2)}\n`,
    '.codex/config.toml': [
      `model = "${model}"`,
      // A gateway of the operator's own, signed in with the key in auth.json (requires_openai_auth).
      'model_provider = "local-gateway"',
      'cli_auth_credentials_store = "file"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      '',
      '[model_providers.local-gateway]',
      'name = "Local gateway"',
      `base_url = "${server.baseUrl}"`,
      'wire_api = "responses"',
      'requires_openai_auth = true',
      '',
    ].join('\n'),
  }),
  linkedFiles: { 'auth.json': '.codex/auth.json', 'config.toml': '.codex/config.toml' },
});
