import { describe, expect, test } from 'vitest';
import { consoleProviderName, credentialDeliveryFor, piApiKeyEnv } from './credential-delivery';

/** The delivery contract in detail; the real CLIs accept it in ../agents/*.test.ts. */
const options = { apiKey: 'sk-test-0123456789', model: 'm-1' };

describe('credentialDeliveryFor', () => {
  test('codex: config.toml with a custom Responses provider reading CODEX_API_KEY; no auth.json', () => {
    const delivery = credentialDeliveryFor('codex', { ...options, baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 0 });
    expect(delivery.env).toEqual({ CODEX_API_KEY: options.apiKey });
    expect(delivery.secretEnv).toEqual(['CODEX_API_KEY']);
    expect(delivery.files.map((file) => [file.relativePath, file.mode])).toEqual([['config.toml', 0o600]]);
    const toml = delivery.files[0]?.content ?? '';
    expect(toml).toContain(`model_provider = "${consoleProviderName}"`);
    expect(toml).toContain(`[model_providers.${consoleProviderName}]`);
    expect(toml).toContain('base_url = "http://127.0.0.1:9/v1"');
    expect(toml).toContain('wire_api = "responses"');
    expect(toml).toContain('env_key = "CODEX_API_KEY"');
    expect(toml).toContain('request_max_retries = 0');
    expect(toml).toContain('stream_max_retries = 0');
    expect(toml).toContain('plugins = false');
    expect(toml).not.toContain(options.apiKey);
    expect(delivery.modelArgument).toBe('m-1');
  });

  test('codex: TOML strings are escaped', () => {
    const toml = credentialDeliveryFor('codex', { ...options, baseUrl: 'http://h/v1?a="b"' }).files[0]?.content ?? '';
    expect(toml).toContain('base_url = "http://h/v1?a=\\"b\\""');
    expect(toml).not.toContain('request_max_retries');
  });

  test('claude-code: env only, base URL without a trailing slash', () => {
    const delivery = credentialDeliveryFor('claude-code', { ...options, baseUrl: 'http://127.0.0.1:9/', maxRetries: 2 });
    expect(delivery.files).toEqual([]);
    expect(delivery.env).toEqual({
      ANTHROPIC_API_KEY: options.apiKey,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_MAX_RETRIES: '2',
    });
  });

  test('pi: models.json names the key variable, never the key; the model is <provider>/<model>', () => {
    const delivery = credentialDeliveryFor('pi', { ...options, baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 0 });
    expect(delivery.env).toEqual({ [piApiKeyEnv]: options.apiKey });
    expect(delivery.modelArgument).toBe(`${consoleProviderName}/m-1`);
    const models = JSON.parse(delivery.files.find((file) => file.relativePath === 'models.json')?.content ?? '{}');
    expect(models.providers[consoleProviderName]).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions', apiKey: piApiKeyEnv, models: [{ id: 'm-1' }] });
    const settings = JSON.parse(delivery.files.find((file) => file.relativePath === 'settings.json')?.content ?? '{}');
    expect(settings.retry).toEqual({ enabled: false, maxRetries: 0, provider: { maxRetries: 0 } });
    for (const file of delivery.files) expect(file.content).not.toContain(options.apiKey);
  });

  test('gemini-cli: env plus .gemini/settings.json selecting API-key auth; maxAttempts is retries + 1, at most 10', () => {
    const delivery = credentialDeliveryFor('gemini-cli', { ...options, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    expect(delivery.env).toEqual({ GEMINI_API_KEY: options.apiKey, GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
    expect(delivery.files.map((file) => file.relativePath)).toEqual(['.gemini/settings.json']);
    const settings = JSON.parse(delivery.files[0]?.content ?? '{}');
    expect(settings.security.auth.selectedType).toBe('gemini-api-key');
    expect(settings.privacy.usageStatisticsEnabled).toBe(false);
    expect(settings.general.maxAttempts).toBe(1);
    const many = JSON.parse(credentialDeliveryFor('gemini-cli', { ...options, baseUrl: 'http://h', maxRetries: 50 }).files[0]?.content ?? '{}');
    expect(many.general.maxAttempts).toBe(10);
  });

  test('refuses what no CLI could use', () => {
    expect(() => credentialDeliveryFor('codex', { ...options, apiKey: ' ', baseUrl: 'http://h/v1' })).toThrow(/no API key/);
    expect(() => credentialDeliveryFor('codex', { ...options, apiKey: 'a\nb', baseUrl: 'http://h/v1' })).toThrow(/line break/);
    expect(() => credentialDeliveryFor('codex', { ...options, baseUrl: 'file:///etc' })).toThrow(/http or https/);
    expect(() => credentialDeliveryFor('codex', { ...options, baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => credentialDeliveryFor('pi', { ...options, baseUrl: 'http://h', maxRetries: -1 })).toThrow(/maxRetries/);
  });
});
