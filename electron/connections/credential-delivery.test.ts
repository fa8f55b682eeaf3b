import { describe, expect, it } from 'vitest';
import { credentialDelivery, deliveredFilePaths, effectiveBaseUrl, modelArgumentFor } from './credential-delivery';

const key = 'sk-test-abcdefghijklmnopqrstuvwxyz0123';
const file = (delivery: ReturnType<typeof credentialDelivery>, name: string) => delivery.files.find((entry) => entry.relativePath === name)?.content as string;

describe('credential delivery per CLI', () => {
  it('Codex to OpenAI: auth.json with the key, CODEX_API_KEY, and file-based credentials', () => {
    const delivery = credentialDelivery({ cli: 'codex', connection: { provider: 'openai', method: 'api_key', baseUrl: null }, secret: key, model: 'gpt-5.5' });
    expect(delivery.secretEnv).toEqual({ CODEX_API_KEY: key });
    expect(JSON.parse(file(delivery, 'auth.json'))).toEqual({ OPENAI_API_KEY: key });
    expect(file(delivery, 'config.toml')).toContain('cli_auth_credentials_store = "file"');
    expect(file(delivery, 'config.toml')).not.toContain('model_providers');
    expect(file(delivery, 'config.toml')).not.toContain(key);
    expect(delivery.secrets).toEqual([key]);
  });

  it('Codex through a base URL: a custom Responses provider reading CODEX_API_KEY, no auth.json', () => {
    const delivery = credentialDelivery({ cli: 'codex', connection: { provider: 'custom', method: 'api_key', baseUrl: 'http://127.0.0.1:8080/v1/' }, secret: key, model: 'm' });
    const config = file(delivery, 'config.toml');
    expect(config).toContain('model_provider = "operator-console"');
    expect(config).toContain('[model_providers.operator-console]');
    expect(config).toContain('base_url = "http://127.0.0.1:8080/v1"');
    expect(config).toContain('wire_api = "responses"');
    expect(config).toContain('env_key = "CODEX_API_KEY"');
    expect(file(delivery, 'auth.json')).toBeUndefined();
    // OpenRouter without a base URL of its own goes through its public endpoint the same way.
    expect(file(credentialDelivery({ cli: 'codex', connection: { provider: 'openrouter', method: 'api_key', baseUrl: null }, secret: key, model: 'm' }), 'config.toml')).toContain(
      'base_url = "https://openrouter.ai/api/v1"',
    );
  });

  it('Claude Code: ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN, ANTHROPIC_BASE_URL, no files', () => {
    const api = credentialDelivery({ cli: 'claude-code', connection: { provider: 'anthropic', method: 'api_key', baseUrl: 'http://127.0.0.1:9/' }, secret: key, model: 'm' });
    expect(api.secretEnv).toEqual({ ANTHROPIC_API_KEY: key });
    expect(api.plainEnv).toMatchObject({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(api.files).toEqual([]);
    const token = credentialDelivery({ cli: 'claude-code', connection: { provider: 'anthropic', method: 'subscription_token', baseUrl: null }, secret: key, model: 'm' });
    expect(token.secretEnv).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: key });
    expect(token.plainEnv.ANTHROPIC_BASE_URL).toBeUndefined();
  });

  it('Pi: the provider’s key variable, or a custom provider in models.json naming the variable (never the key)', () => {
    const direct = credentialDelivery({ cli: 'pi', connection: { provider: 'anthropic', method: 'api_key', baseUrl: null }, secret: key, model: 'anthropic/claude-sonnet-4-6' });
    expect(direct.secretEnv).toEqual({ ANTHROPIC_API_KEY: key });
    expect(file(direct, 'models.json')).toBeUndefined();
    const connection = { provider: 'custom' as const, method: 'api_key' as const, baseUrl: 'http://127.0.0.1:8080/v1' };
    const custom = credentialDelivery({ cli: 'pi', connection, secret: key, model: 'openai/gpt-5.5' });
    expect(custom.secretEnv).toEqual({ OPERATOR_CONSOLE_API_KEY: key });
    const models = JSON.parse(file(custom, 'models.json'));
    expect(models.providers['operator-console']).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/v1', api: 'openai-completions', apiKey: 'OPERATOR_CONSOLE_API_KEY', models: [{ id: 'gpt-5.5' }] });
    expect(file(custom, 'models.json')).not.toContain(key);
    expect(modelArgumentFor('pi', connection, 'openai/gpt-5.5')).toBe('operator-console/gpt-5.5');
    expect(modelArgumentFor('pi', { ...connection, provider: 'openai', baseUrl: null }, 'openai/gpt-5.5')).toBe('openai/gpt-5.5');
    expect(modelArgumentFor('codex', connection, 'gpt-5.5')).toBe('gpt-5.5');
  });

  it('Gemini CLI: GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL and settings.json selecting API-key auth', () => {
    const delivery = credentialDelivery({ cli: 'gemini-cli', connection: { provider: 'google', method: 'api_key', baseUrl: 'http://127.0.0.1:7' }, secret: key, model: 'm' });
    expect(delivery.secretEnv).toEqual({ GEMINI_API_KEY: key });
    expect(delivery.plainEnv).toEqual({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:7' });
    expect(JSON.parse(file(delivery, '.gemini/settings.json')).security.auth.selectedType).toBe('gemini-api-key');
  });

  it('a command of the operator’s own: the variables its provider’s SDKs read', () => {
    const delivery = credentialDelivery({ cli: 'command', connection: { provider: 'custom', method: 'api_key', baseUrl: 'http://127.0.0.1:1/v1' }, secret: key, model: 'm' });
    expect(delivery).toMatchObject({ secretEnv: { OPENAI_API_KEY: key }, plainEnv: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, files: [] });
  });

  it('knows which files recovery may have to remove, and which base URL the egress proxy must allow', () => {
    for (const cli of ['codex', 'claude-code', 'pi', 'gemini-cli', 'command'] as const) {
      const delivery = credentialDelivery({ cli, connection: { provider: 'custom', method: 'api_key', baseUrl: 'http://127.0.0.1:1/v1' }, secret: key, model: 'a/b' });
      for (const entry of delivery.files) expect(deliveredFilePaths(cli)).toContain(entry.relativePath);
    }
    expect(effectiveBaseUrl('claude-code', { provider: 'openrouter', method: 'api_key', baseUrl: null })).toBe('https://openrouter.ai/api');
    expect(effectiveBaseUrl('codex', { provider: 'openai', method: 'api_key', baseUrl: null })).toBeNull();
  });
});

/** The exact layouts the real CLIs accept through a base URL (e2e/agents runs them against model servers). */
describe('the layouts proven against the real CLIs', () => {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const deliver = (cli: 'codex' | 'claude-code' | 'pi' | 'gemini-cli', baseUrl: string) => {
    const connection = { provider: cli === 'claude-code' ? ('anthropic' as const) : ('custom' as const), method: 'api_key' as const, baseUrl };
    return { ...credentialDelivery({ cli, connection, secret: key, model: 'm-1' }), modelArgument: modelArgumentFor(cli, connection, 'm-1') };
  };

  it('Codex: config.toml with a custom Responses provider reading CODEX_API_KEY, its retries off', () => {
    expect(deliver('codex', 'http://127.0.0.1:8080/v1/')).toEqual({
      secretEnv: { CODEX_API_KEY: key },
      plainEnv: {},
      files: [
        {
          relativePath: 'config.toml',
          content: [
            '# Written by Operator Console for one run (AI connection delivery); removed when the run ends.',
            'model = "m-1"',
            'model_provider = "operator-console"',
            'cli_auth_credentials_store = "file"',
            'check_for_update_on_startup = false',
            '',
            '[analytics]',
            'enabled = false',
            '',
            '# The curated plugins marketplace is synced from github.com at start; a run reaches only its model.',
            '[features]',
            'plugins = false',
            'remote_plugin = false',
            '',
            '[model_providers.operator-console]',
            'name = "Operator Console AI connection"',
            'base_url = "http://127.0.0.1:8080/v1"',
            'wire_api = "responses"',
            'env_key = "CODEX_API_KEY"',
            'request_max_retries = 0',
            'stream_max_retries = 0',
            '',
          ].join('\n'),
        },
      ],
      secrets: [key],
      modelArgument: 'm-1',
    });
    // TOML strings are escaped.
    expect(file(deliver('codex', 'http://h/v1?a="b"'), 'config.toml')).toContain('base_url = "http://h/v1?a=\\"b\\""');
  });

  it('Claude Code: the key, the origin without a trailing slash, no updater, its retries off; no file', () => {
    expect(deliver('claude-code', 'http://127.0.0.1:8080/')).toEqual({
      secretEnv: { ANTHROPIC_API_KEY: key },
      plainEnv: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_MAX_RETRIES: '0' },
      files: [],
      secrets: [key],
      modelArgument: 'm-1',
    });
  });

  it('Pi: models.json naming the key variable (never the key), settings.json with its retries off, the model as operator-console/<model>', () => {
    expect(deliver('pi', 'http://127.0.0.1:8080/v1/')).toEqual({
      secretEnv: { OPERATOR_CONSOLE_API_KEY: key },
      plainEnv: {},
      files: [
        {
          relativePath: 'models.json',
          content: json({
            providers: {
              'operator-console': {
                baseUrl: 'http://127.0.0.1:8080/v1',
                api: 'openai-completions',
                apiKey: 'OPERATOR_CONSOLE_API_KEY',
                models: [{ id: 'm-1', name: 'm-1', reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
              },
            },
          }),
        },
        { relativePath: 'settings.json', content: json({ retry: { enabled: false, maxRetries: 0, provider: { maxRetries: 0 } } }) },
      ],
      secrets: [key],
      modelArgument: 'operator-console/m-1',
    });
  });

  it('Gemini CLI: the key, the origin, and .gemini/settings.json selecting API-key auth with one attempt', () => {
    expect(deliver('gemini-cli', 'http://127.0.0.1:8080/')).toEqual({
      secretEnv: { GEMINI_API_KEY: key },
      plainEnv: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8080' },
      files: [
        {
          relativePath: '.gemini/settings.json',
          content: json({
            security: { auth: { selectedType: 'gemini-api-key' } },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
          }),
        },
      ],
      secrets: [key],
      modelArgument: 'm-1',
    });
  });

  it('refuses a key no CLI could use', () => {
    const connection = { provider: 'custom' as const, method: 'api_key' as const, baseUrl: 'http://h/v1' };
    expect(() => credentialDelivery({ cli: 'codex', connection, secret: ' ', model: 'm' })).toThrow(/empty/);
    expect(() => credentialDelivery({ cli: 'codex', connection, secret: 'a\nb', model: 'm' })).toThrow(/line break/);
  });
});
