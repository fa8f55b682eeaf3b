import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionProviders } from '../../shared/entities';
import { credentialDelivery, effectiveBaseUrl } from './credential-delivery';
import { loadProviderCatalog } from './catalog';
import { eventFormats, eventParserFor, failurePatternsFor, findDefinition, providerDefinitions, providerHomeVariableNames } from './definitions';
import { evidenceCodes } from './failure-classifier';
import { launchRequest, taskRoot } from './launch-request.fixture';
import type { ProviderDefinition } from './provider-definition';

/**
 * The test that fails when a definition leaves a required part out (or gets one wrong): every
 * definition, present and future, is checked here without a line of its own. What each CLI does
 * with its parts is pinned in its folder's test file.
 */

const catalog = loadProviderCatalog();
const clis = providerDefinitions.filter((definition) => !definition.ownProgram);
const profileOf = (definition: ProviderDefinition) =>
  definition.ownProgram
    ? { id: 'program', label: 'Program', executable: '/usr/local/bin/agent', argsTemplate: ['{prompt}'], args: [], env: {}, maxAttempts: 1, retryBackoffBaseMs: 1, stopGraceMs: 1 }
    : { id: 'default', label: 'Default', args: [], env: {}, maxAttempts: 1, retryBackoffBaseMs: 1, stopGraceMs: 1 };
const target = (definition: ProviderDefinition) => ({ displayName: definition.displayName, executable: definition.executable });

describe('every provider definition', () => {
  it('has a unique name, a display name, and its own stream format', () => {
    const ids = providerDefinitions.map((definition) => definition.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const definition of providerDefinitions) {
      expect(definition.id, definition.id).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(definition.displayName.trim(), definition.id).not.toBe('');
    }
    const formats = providerDefinitions.map((definition) => definition.events.format);
    expect(new Set(formats).size).toBe(formats.length);
    expect(eventFormats).toEqual(formats);
  });

  it('names a catalog entry of the shipped catalog, and every entry names a definition', () => {
    const named = new Set(catalog.listProviders().map((provider) => provider.definition.id));
    for (const definition of providerDefinitions) expect(named.has(definition.id), definition.id).toBe(true);
    for (const provider of catalog.listProviders()) expect(findDefinition(provider.definition.id)).toBe(provider.definition);
  });

  it('for a CLI: an executable, the version it was checked with (which its own version parser reads back), and a parser for its stream', () => {
    for (const definition of clis) {
      expect(definition.executable, definition.id).toMatch(/^[\w.-]+$/);
      expect(definition.testedVersion, definition.id).toMatch(/^\d+\.\d+\.\d+/);
      expect(definition.parseVersion(`${definition.id} ${definition.testedVersion}\n`), definition.id).toBe(definition.testedVersion);
      expect(definition.events.parse, definition.id).toBeTypeOf('function');
      expect(eventParserFor(definition.events.format), definition.id).toBe(definition.events.parse);
    }
  });

  it('for a CLI: a home of its own, one folder in the task cache, whose operator files stay inside it', () => {
    const variables = providerHomeVariableNames();
    expect(new Set(variables).size).toBe(variables.length);
    const folders = clis.map((definition) => definition.home?.folder);
    expect(new Set(folders).size).toBe(folders.length);
    for (const definition of clis) {
      const home = definition.home;
      expect(home, definition.id).not.toBeNull();
      expect(home.variable, definition.id).toMatch(/^[A-Z_][A-Z0-9_]*$/);
      expect(home.folder, definition.id).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(home.folder).not.toMatch(/^\.+$/);
      const files = home.operatorFiles('/home/operator', {});
      expect(files.length, definition.id).toBeGreaterThan(0);
      for (const file of files) {
        expect(path.isAbsolute(file.source), file.source).toBe(true);
        const inHome = path.resolve('/home', file.relativePath);
        expect(path.relative('/home', inHome).startsWith('..'), file.relativePath).toBe(false);
      }
      // The CLI's own home override in the operator's environment moves where the files are found.
      const overridden = home.operatorFiles('/home/operator', { [home.variable]: '/elsewhere' });
      expect(overridden.every((file) => file.source.startsWith('/elsewhere/')), definition.id).toBe(true);
    }
  });

  it('launches in the view with its home in the task cache and the prompt intact; resumes only if it says so', () => {
    for (const definition of providerDefinitions) {
      const profile = profileOf(definition);
      const launch = definition.launch.build(target(definition), launchRequest(profile, 'some-model'));
      expect(launch.executable, definition.id).not.toBe('');
      expect(launch.cwd).toBe(taskRoot.view);
      expect(launch.args.some((arg) => arg.includes('Make test X deterministic.')), definition.id).toBe(true);
      if (definition.home) expect(launch.env[definition.home.variable]).toBe(path.join(taskRoot.cache, definition.home.folder));
      const resume = () => definition.launch.build(target(definition), launchRequest(profile, 'some-model', { session: { mode: 'resume', sessionId: 'abc' } }));
      if (definition.launch.resumable) expect(resume().session?.id, definition.id).toBe('abc');
      else expect(resume, definition.id).toThrow(expect.objectContaining({ reason: 'session_resume_unsupported' }));
    }
  });

  it('delivers every connection it takes, only the files it declares, and says where its API is', () => {
    for (const definition of providerDefinitions) {
      expect(definition.connectionProviders.length, definition.id).toBeGreaterThan(0);
      for (const provider of definition.connectionProviders) {
        expect(connectionProviders).toContain(provider);
        for (const baseUrl of ['http://127.0.0.1:1/v1/', null]) {
          const connection = { provider, method: 'api_key' as const, baseUrl };
          const delivery = credentialDelivery({ definition, connection, secret: 'sk-registry-test-key-0123456789', model: 'vendor/model-1' });
          expect(Object.values(delivery.secretEnv), `${definition.id} ${provider}`).toContain('sk-registry-test-key-0123456789');
          for (const file of delivery.files) expect(definition.delivery.files, `${definition.id} ${provider}`).toContain(file.relativePath);
          // A secret only ever travels in secretEnv (redacted and passed as delivered secrets), never as a plain variable.
          expect(Object.values(delivery.plainEnv)).not.toContain('sk-registry-test-key-0123456789');
          if (provider === 'openrouter' && !baseUrl) expect(effectiveBaseUrl(definition, connection), definition.id).toMatch(/^https:\/\//);
        }
      }
      for (const relative of definition.delivery.files) expect(path.isAbsolute(relative) || relative.split(path.sep).includes('..'), relative).toBe(false);
      for (const url of definition.apiUrls) expect(new URL(url).protocol, definition.id).toBe('https:');
      if (!definition.ownProgram) expect(definition.apiUrls.length, definition.id).toBeGreaterThan(0);
    }
  });

  it('keeps the model the operator chose: the model argument is the id, or the id behind the console provider', () => {
    for (const definition of providerDefinitions) {
      for (const baseUrl of ['http://127.0.0.1:1/v1', null]) {
        const argument = definition.delivery.modelArgument('vendor/model-1:tag', baseUrl);
        expect(argument.endsWith('vendor/model-1:tag'), `${definition.id}: ${argument}`).toBe(true);
      }
    }
  });

  it('gives failure patterns only for codes the classifier decides from evidence; a command is read with every CLI’s', () => {
    for (const definition of providerDefinitions) {
      for (const [code, patterns] of Object.entries(definition.failurePatterns)) {
        expect(evidenceCodes, definition.id).toContain(code);
        expect(patterns.length, `${definition.id} ${code}`).toBeGreaterThan(0);
      }
    }
    const command = providerDefinitions.find((definition) => definition.ownProgram)!;
    const all = failurePatternsFor(command);
    for (const definition of clis) {
      for (const [code, patterns] of Object.entries(definition.failurePatterns)) {
        for (const pattern of patterns) expect(all[code as keyof typeof all], `${definition.id} ${code}`).toContain(pattern);
      }
      expect(failurePatternsFor(definition)).toBe(definition.failurePatterns);
    }
  });
});
