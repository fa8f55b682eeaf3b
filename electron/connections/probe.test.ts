import { afterEach, describe, expect, it } from 'vitest';
import { startTestModelServer, type TestModelServer } from '../testing/model-server';
import { keyShapeProblem, probeConnection, secretHint } from './probe';

const servers: TestModelServer[] = [];
async function server(options: Parameters<typeof startTestModelServer>[0]) {
  const started = await startTestModelServer(options);
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

const openAiKey = 'sk-test-abcdefghijklmnopqrstuvwxyz0123';
const anthropicKey = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
const googleKey = `AIza${'x'.repeat(35)}`;

describe('a connection Test: the shape of the key', () => {
  it('knows each provider’s keys', () => {
    expect(keyShapeProblem('openai', 'api_key', openAiKey)).toBeNull();
    expect(keyShapeProblem('openai', 'api_key', 'AIzaNotOpenAi')).toMatch(/sk-/);
    expect(keyShapeProblem('anthropic', 'api_key', anthropicKey)).toBeNull();
    expect(keyShapeProblem('anthropic', 'api_key', openAiKey)).toMatch(/sk-ant-/);
    expect(keyShapeProblem('anthropic', 'subscription_token', 'sk-ant-oat01-abcdefghijklmnopqrstuvwxyz')).toBeNull();
    expect(keyShapeProblem('anthropic', 'subscription_token', anthropicKey)).toMatch(/setup-token/);
    expect(keyShapeProblem('google', 'api_key', googleKey)).toBeNull();
    expect(keyShapeProblem('google', 'api_key', `${googleKey}x`)).toMatch(/39 characters/);
    expect(keyShapeProblem('openrouter', 'api_key', 'sk-or-v1-abcdefghijklmnopqrstuvwxyz')).toBeNull();
    expect(keyShapeProblem('custom', 'api_key', 'local-key')).toBeNull();
    expect(keyShapeProblem('custom', 'api_key', 'x')).toMatch(/shorter/);
  });

  it('shows a hint, never the key', () => {
    expect(secretHint('openai', openAiKey)).toBe('OpenAI …0123');
  });

  it('without a base URL, checks the shape only and calls nobody', async () => {
    expect(await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: null, secret: openAiKey })).toMatchObject({ ok: true, status: 'connected' });
    expect(await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: null, secret: 'nope' })).toMatchObject({
      ok: false,
      code: 'invalid_key_shape',
      status: 'needs_attention',
    });
  });
});

describe('a connection Test: the models endpoint at the base URL', () => {
  it('asks an OpenAI-compatible server for /models with a bearer key', async () => {
    const models = await server({ key: openAiKey, models: ['a', 'b'] });
    const result = await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: `${models.origin}/v1/`, secret: openAiKey });
    expect(result).toMatchObject({ ok: true, status: 'connected', message: expect.stringContaining('2 models') });
    expect(models.requests).toMatchObject([{ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${openAiKey}` } }]);
  });

  it('asks Anthropic’s /v1/models with x-api-key and anthropic-version', async () => {
    const models = await server({ key: anthropicKey });
    const result = await probeConnection({ provider: 'anthropic', method: 'api_key', baseUrl: models.origin, secret: anthropicKey });
    expect(result).toMatchObject({ ok: true });
    expect(models.requests[0]).toMatchObject({ path: '/v1/models', headers: { 'x-api-key': anthropicKey, 'anthropic-version': '2023-06-01' } });
  });

  it('asks Gemini’s /v1beta/models with the key in a header, not the URL', async () => {
    const models = await server({ key: googleKey });
    const result = await probeConnection({ provider: 'google', method: 'api_key', baseUrl: models.origin, secret: googleKey });
    expect(result).toMatchObject({ ok: true });
    expect(models.requests[0]).toMatchObject({ path: '/v1beta/models', headers: { 'x-goog-api-key': googleKey } });
    expect(models.requests[0]!.path).not.toContain(googleKey);
  });

  it('reports a refused key with the server’s words, redacted of the key', async () => {
    const models = await server({ key: 'sk-test-the-right-one-0123456789', echoKeyOnError: true });
    const result = await probeConnection({ provider: 'custom', method: 'api_key', baseUrl: `${models.origin}/v1`, secret: openAiKey });
    expect(result).toMatchObject({ ok: false, code: 'auth_required', status: 'needs_attention' });
    expect(result.message).toContain('Incorrect API key provided: [redacted]');
    expect(result.message).not.toContain(openAiKey);
  });

  it('gives up after its timeout on a server that does not answer, and does not follow redirects', async () => {
    const silent = await server({ key: openAiKey, hang: true });
    const started = Date.now();
    const result = await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: `${silent.origin}/v1`, secret: openAiKey, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, code: 'unreachable', status: 'needs_attention' });
    expect(Date.now() - started).toBeLessThan(3000);

    const moving = await server({ key: openAiKey });
    expect(await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: `${moving.origin}/moved`, secret: openAiKey })).toMatchObject({
      ok: false,
      code: 'redirected',
    });
    const nothing = await probeConnection({ provider: 'openai', method: 'api_key', baseUrl: 'http://127.0.0.1:9/v1', secret: openAiKey, timeoutMs: 1000 });
    expect(nothing).toMatchObject({ ok: false, code: 'unreachable' });
  });
});

describe('a connection Test against Gemini with a wrong key', () => {
  it('reads Gemini’s 400 “API key not valid” as a refused key', async () => {
    const models = await server({ key: googleKey });
    const result = await probeConnection({ provider: 'google', method: 'api_key', baseUrl: models.origin, secret: `AIza${'y'.repeat(35)}` });
    expect(result).toMatchObject({ ok: false, code: 'auth_required', message: expect.stringContaining('API key not valid') });
  });
});
