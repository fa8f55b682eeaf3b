import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../shared/errors';
import {
  canonicalJson,
  defaultCatalogPath,
  defaultModel,
  loadProviderCatalog,
  parseProviderCatalog,
  profileRevision,
} from './catalog';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoCatalogPath = path.resolve(here, '../../resources/providers/catalog.json');
const catalogJson = () => JSON.parse(readFileSync(repoCatalogPath, 'utf8')) as { providers: Array<Record<string, unknown>> };

function expectCatalogError(run: () => unknown, reason: string, messagePart?: string) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OperatorError);
    expect((error as OperatorError).code).toBe('configuration_incomplete');
    expect((error as OperatorError).reason).toBe(reason);
    if (messagePart) expect((error as OperatorError).message).toContain(messagePart);
    return;
  }
  throw new Error('expected the catalog to be refused');
}

describe('provider catalog', () => {
  it('loads the shipped catalog with the five providers', () => {
    const catalog = loadProviderCatalog();
    expect(catalog.listProviders().map((provider) => provider.id)).toEqual(['codex', 'claude-code', 'pi', 'gemini-cli', 'command']);
  });

  it('names each CLI, its tested version and its home variable (from the definition it names)', () => {
    const catalog = loadProviderCatalog();
    const summary = catalog
      .listProviders()
      .map((provider) => [provider.id, provider.executable, provider.definition.testedVersion, provider.definition.home?.variable ?? null]);
    expect(summary).toEqual([
      ['codex', 'codex', '0.171.0', 'CODEX_HOME'],
      ['claude-code', 'claude', '2.1.197', 'CLAUDE_CONFIG_DIR'],
      ['pi', 'pi', '0.73.1', 'PI_CODING_AGENT_DIR'],
      ['gemini-cli', 'gemini', '0.61.0', 'GEMINI_CLI_HOME'],
      ['command', null, null, null],
    ]);
  });

  it('gives every CLI provider a default model and profile, with retry and stop settings', () => {
    const catalog = loadProviderCatalog();
    for (const provider of catalog.listProviders()) {
      expect(provider.profiles.length).toBeGreaterThan(0);
      for (const profile of provider.profiles) {
        expect(profile.maxAttempts).toBeGreaterThanOrEqual(1);
        expect(profile.retryBackoffBaseMs).toBeGreaterThan(0);
        expect(profile.stopGraceMs).toBeGreaterThan(0);
      }
      if (!provider.definition.ownProgram) expect(defaultModel(provider)).toBe(provider.models[0]?.id);
    }
    expect(defaultModel(catalog.getProvider('codex'))).toBe('gpt-6.2-sol');
    expect(defaultModel(catalog.getProvider('command'))).toBeNull();
  });

  it('lets an entry rename its CLI, run another executable and take fewer connections', () => {
    const json = catalogJson();
    json.providers = [{ ...json.providers[0]!, id: 'codex-nightly', displayName: 'Codex nightly', executable: '/opt/codex/bin/codex', connectionProviders: ['openai'] }];
    const entry = parseProviderCatalog(json).getProvider('codex-nightly');
    expect(entry).toMatchObject({ displayName: 'Codex nightly', executable: '/opt/codex/bin/codex', connectionProviders: ['openai'] });
    expect(entry.definition.id).toBe('codex');
  });

  it('lists which AI connections each provider can use', () => {
    const catalog = loadProviderCatalog();
    expect(catalog.getProvider('codex').connectionProviders).toContain('openai');
    expect(catalog.getProvider('claude-code').connectionProviders).toContain('anthropic');
    expect(catalog.getProvider('gemini-cli').connectionProviders).toContain('google');
    expect(catalog.getProvider('pi').connectionProviders).toEqual(['anthropic', 'openai', 'google', 'openrouter', 'custom']);
  });

  it('finds profiles and refuses unknown providers and profiles with not_found', () => {
    const catalog = loadProviderCatalog();
    expect(catalog.getProfile('claude-code', 'default').env).toEqual({ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    expect(() => catalog.getProvider('aider')).toThrow(expect.objectContaining({ code: 'not_found', reason: 'provider_unknown' }));
    expect(() => catalog.getProfile('codex', 'turbo')).toThrow(expect.objectContaining({ code: 'not_found', reason: 'profile_unknown' }));
    expect(catalog.findProvider('aider')).toBeUndefined();
  });
});

describe('catalog path', () => {
  it('resolves resources/providers/catalog.json from source and from the built layout', () => {
    expect(defaultCatalogPath()).toBe(repoCatalogPath);
    const repoRoot = path.resolve(here, '../..');
    // dist/electron/main.js and dist/electron/chunks/*.js sit at different depths.
    expect(defaultCatalogPath(path.join(repoRoot, 'dist', 'electron'))).toBe(repoCatalogPath);
    expect(defaultCatalogPath(path.join(repoRoot, 'dist', 'electron', 'chunks'))).toBe(repoCatalogPath);
  });

  it('accepts an explicit path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
    const file = path.join(dir, 'catalog.json');
    const json = catalogJson();
    json.providers = json.providers.filter((provider) => provider.id === 'pi');
    writeFileSync(file, JSON.stringify(json));
    expect(loadProviderCatalog({ path: file }).listProviders().map((provider) => provider.id)).toEqual(['pi']);
  });
});

describe('a bad catalog file', () => {
  it('that is missing is refused with provider_catalog_unreadable and its path', () => {
    expectCatalogError(() => loadProviderCatalog({ path: '/nonexistent/catalog.json' }), 'provider_catalog_unreadable', '/nonexistent/catalog.json');
  });

  it('that is not JSON is refused with provider_catalog_invalid', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
    const file = path.join(dir, 'catalog.json');
    writeFileSync(file, '{ "version": 1, ');
    expectCatalogError(() => loadProviderCatalog({ path: file }), 'provider_catalog_invalid', 'not valid JSON');
  });

  it('with a wrong shape names the field', () => {
    const json = catalogJson();
    delete json.providers[0]?.definition;
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'providers.0.definition');
  });

  it('that names no definition the console has, or a connection its CLI cannot use, is refused', () => {
    const unknown = catalogJson();
    unknown.providers[0]!.definition = 'aider';
    expectCatalogError(() => parseProviderCatalog(unknown), 'provider_catalog_invalid', 'providers.0.definition');
    const connection = catalogJson();
    connection.providers[3]!.connectionProviders = ['google', 'anthropic'];
    expectCatalogError(() => parseProviderCatalog(connection), 'provider_catalog_invalid', 'Gemini CLI cannot use anthropic connections');
  });

  it('written for an earlier console (version 1, with the CLI described in it) is refused with what changed', () => {
    const json = { ...catalogJson(), version: 1 };
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'each provider names its definition');
  });

  it('with a typo in a field name is refused rather than ignored', () => {
    const json = catalogJson();
    (json.providers[1]?.profiles as Array<Record<string, unknown>>)[0]!.maxAttemps = 5;
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'maxAttemps');
  });

  it('with duplicate providers, models or profiles is refused', () => {
    const json = catalogJson();
    json.providers.push({ ...json.providers[0] });
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'duplicate provider codex');
    const models = catalogJson();
    const codexModels = models.providers[0]?.models as unknown[];
    codexModels.push(codexModels[0]);
    expectCatalogError(() => parseProviderCatalog(models), 'provider_catalog_invalid', 'duplicate model gpt-6.2-sol');
  });

  it('with a command profile that uses an unknown placeholder is refused', () => {
    const json = catalogJson();
    const command = json.providers.find((provider) => provider.id === 'command')!;
    (command.profiles as Array<Record<string, unknown>>)[0]!.argsTemplate = ['-c', '{promt}'];
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'unknown placeholder {promt}');
  });

  it('with a profile that moves the provider home is refused', () => {
    const json = catalogJson();
    (json.providers[0]?.profiles as Array<Record<string, unknown>>)[0]!.env = { CODEX_HOME: '/root/.codex' };
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'may not set CODEX_HOME');
  });

  it('with a CLI provider without models is refused', () => {
    const json = catalogJson();
    json.providers[2]!.models = [];
    expectCatalogError(() => parseProviderCatalog(json), 'provider_catalog_invalid', 'needs at least one model');
  });
});

describe('profileRevision', () => {
  const catalog = loadProviderCatalog();
  const codex = catalog.getProvider('codex');
  const profile = catalog.getProfile('codex', 'default');

  it('is a sha256 hex digest that is stable across loads', () => {
    const revision = profileRevision(codex, profile);
    expect(revision).toMatch(/^[0-9a-f]{64}$/);
    const again = loadProviderCatalog();
    expect(profileRevision(again.getProvider('codex'), again.getProfile('codex', 'default'))).toBe(revision);
  });

  it('does not depend on key order, the model list or labels', () => {
    const revision = profileRevision(codex, profile);
    const reordered = JSON.parse(JSON.stringify({ ...profile, env: {}, label: 'Renamed', args: [] })) as typeof profile;
    expect(profileRevision({ ...codex, models: [{ id: 'other', label: 'Other' }], displayName: 'X' }, reordered)).toBe(revision);
  });

  it('changes with anything that changes the launch', () => {
    const revision = profileRevision(codex, profile);
    const changed = [
      profileRevision(codex, { ...profile, args: ['--ephemeral'] }),
      profileRevision(codex, { ...profile, env: { RUST_LOG: 'debug' } }),
      profileRevision(codex, { ...profile, executable: '/opt/codex/bin/codex' }),
      profileRevision(codex, { ...profile, id: 'other' }),
      profileRevision(codex, { ...profile, maxAttempts: 5 }),
      profileRevision({ ...codex, executable: 'codex-nightly' }, profile),
      profileRevision({ ...codex, id: 'codex-2' }, profile),
    ];
    for (const value of changed) expect(value).not.toBe(revision);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('is computed over canonical JSON (sorted keys at every depth)', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
  });
});
