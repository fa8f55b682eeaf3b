import { describe, expect, it } from 'vitest';
import { claudeCodeDefinition } from './claude-code/definition';
import { codexDefinition } from './codex/definition';
import { providerDefinitions } from './definitions';
import { credentialDelivery, effectiveBaseUrl } from './credential-delivery';

// What each CLI is delivered is pinned in its own test file (electron/providers/<cli>/<cli>.test.ts).
const key = 'sk-test-abcdefghijklmnopqrstuvwxyz0123';

describe('credential delivery', () => {
  it('knows which files recovery may have to remove, and which base URL the egress proxy must allow', () => {
    for (const definition of providerDefinitions) {
      for (const provider of definition.connectionProviders) {
        for (const baseUrl of ['http://127.0.0.1:1/v1', null]) {
          const delivery = credentialDelivery({ definition, connection: { provider, method: 'api_key', baseUrl }, secret: key, model: 'a/b' });
          for (const entry of delivery.files) expect(definition.delivery.files, `${definition.id} through ${provider}`).toContain(entry.relativePath);
        }
      }
    }
    expect(effectiveBaseUrl(claudeCodeDefinition, { provider: 'openrouter', method: 'api_key', baseUrl: null })).toBe('https://openrouter.ai/api');
    expect(effectiveBaseUrl(codexDefinition, { provider: 'openai', method: 'api_key', baseUrl: null })).toBeNull();
  });

  it('refuses a key no CLI could use', () => {
    const connection = { provider: 'custom' as const, method: 'api_key' as const, baseUrl: 'http://h/v1' };
    expect(() => credentialDelivery({ definition: codexDefinition, connection, secret: ' ', model: 'm' })).toThrow(/empty/);
    expect(() => credentialDelivery({ definition: codexDefinition, connection, secret: 'a\nb', model: 'm' })).toThrow(/line break/);
  });
});
