import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { connectionProviders, type AiConnection } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { commandPlaceholders, placeholdersIn } from './command/launch';
import { definitionIds, eventFormats, getDefinition } from './definitions';
import { findResourceFile, moduleDir } from '../platform/resource-file';
import type { LaunchProfile } from './launch';
import type { ProviderDefinition } from './provider-definition';

export type { LaunchProfile } from './launch';

/**
 * The provider catalog: which CLIs the console offers, with what operators tune (the models the
 * picker suggests, the launch profiles, retries). Everything else about a CLI (its argv, stream,
 * home, credential delivery, API hosts, version) is its definition's (definitions.ts), which each
 * entry names. It is a JSON file in resources/ so operators and packagers can read and extend it
 * without a rebuild; this module is the only reader, and it refuses a file that does not validate
 * rather than guessing.
 */

export const catalogVersion = 2;

const slug = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a lowercase slug');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const launchProfileSchema = z.strictObject({
  id: slug,
  label: z.string().min(1),
  /** Extra arguments, placed after the CLI's own headless flags and before the prompt. */
  args: z.array(z.string()).default([]),
  env: z.record(envName, z.string()).default({}),
  /** Overrides the provider's executable; required for `command` profiles. */
  executable: z.string().min(1).optional(),
  /** `command` profiles only: the whole argv after the executable, with {placeholders}. */
  argsTemplate: z.array(z.string()).optional(),
  /**
   * `command` profiles only: the JSON-line event format the program prints, when it speaks one of
   * the CLIs' streams (a wrapper script, a test fixture); the timeline parses it like that CLI's.
   */
  eventFormat: z.enum(eventFormats).optional(),
  maxAttempts: z.number().int().min(1).max(20).default(3),
  retryBackoffBaseMs: z.number().int().min(0).max(3_600_000).default(5000),
  stopGraceMs: z.number().int().min(0).max(600_000).default(5000),
}) satisfies z.ZodType<LaunchProfile>;

const modelSchema = z.strictObject({ id: z.string().min(1), label: z.string().min(1) });
export type ProviderModel = z.infer<typeof modelSchema>;

const providerSchema = z
  .strictObject({
    id: slug,
    /** Which CLI this entry drives: one of definitions.ts. */
    definition: z.enum(definitionIds),
    /** The name the console shows; the definition's by default. */
    displayName: z.string().min(1).optional(),
    /** Another program than the definition's (a wrapper, a nightly build). Not for `command`. */
    executable: z.string().min(1).optional(),
    /** Fewer AI connections than the definition can deliver; all of them by default. */
    connectionProviders: z.array(z.enum(connectionProviders)).optional(),
    /** Suggestions for the model picker, the first the default. An agent may name any other model. */
    models: z.array(modelSchema).default([]),
    profiles: z.array(launchProfileSchema).min(1),
  })
  .superRefine((provider, ctx) => {
    const issue = (message: string, pathSuffix: (string | number)[] = []) =>
      ctx.addIssue({ code: 'custom', message, path: pathSuffix });
    const definition = getDefinition(provider.definition);
    if (definition.ownProgram) {
      if (provider.executable !== undefined) issue('a command provider takes its executable from each profile', ['executable']);
      provider.profiles.forEach((profile, index) => {
        // A profile without an executable runs the program the agent names (its executable path).
        if (!profile.argsTemplate) issue('a command profile needs an argsTemplate', ['profiles', index, 'argsTemplate']);
        for (const name of placeholdersIn(profile.argsTemplate ?? [])) {
          if (!(commandPlaceholders as readonly string[]).includes(name)) {
            issue(`unknown placeholder {${name}}`, ['profiles', index, 'argsTemplate']);
          }
        }
      });
    } else {
      if (provider.models.length === 0) issue('needs at least one model (the first is the default)', ['models']);
      provider.profiles.forEach((profile, index) => {
        if (profile.argsTemplate) issue('only command profiles take an argsTemplate', ['profiles', index, 'argsTemplate']);
        // The definition owns the provider home; a profile that moved it would escape the task's cache.
        if (definition.home && definition.home.variable in profile.env) {
          issue(`a profile may not set ${definition.home.variable}`, ['profiles', index, 'env']);
        }
      });
    }
    for (const connection of provider.connectionProviders ?? []) {
      if (!definition.connectionProviders.includes(connection)) {
        issue(`${definition.displayName} cannot use ${connection} connections`, ['connectionProviders']);
      }
    }
    duplicates(provider.models.map((model) => model.id)).forEach((id) => issue(`duplicate model ${id}`, ['models']));
    duplicates(provider.profiles.map((profile) => profile.id)).forEach((id) => issue(`duplicate profile ${id}`, ['profiles']));
  });
type ProviderFileEntry = z.infer<typeof providerSchema>;

const catalogSchema = z
  .strictObject({
    version: z.literal(catalogVersion),
    providers: z.array(providerSchema).min(1),
  })
  .superRefine((catalog, ctx) => {
    duplicates(catalog.providers.map((provider) => provider.id)).forEach((id) =>
      ctx.addIssue({ code: 'custom', message: `duplicate provider ${id}`, path: ['providers'] }),
    );
  });
export type ProviderCatalogFile = z.infer<typeof catalogSchema>;

/** A catalog entry with its definition: what the rest of the console asks about a provider. */
export interface ProviderEntry {
  id: string;
  displayName: string;
  definition: ProviderDefinition;
  /** The program a run starts: the entry's, else the definition's; null for `command` (each profile's or agent's). */
  executable: string | null;
  connectionProviders: readonly AiConnection['provider'][];
  models: readonly ProviderModel[];
  profiles: readonly LaunchProfile[];
}

function resolveEntry(entry: ProviderFileEntry): ProviderEntry {
  const definition = getDefinition(entry.definition);
  return {
    id: entry.id,
    displayName: entry.displayName ?? definition.displayName,
    definition,
    executable: entry.executable ?? definition.executable,
    connectionProviders: entry.connectionProviders ?? definition.connectionProviders,
    models: entry.models,
    profiles: entry.profiles,
  };
}

function duplicates(values: string[]): string[] {
  return [...new Set(values.filter((value, index) => values.indexOf(value) !== index))];
}

export class ProviderCatalog {
  readonly version: number;
  private readonly providers: readonly ProviderEntry[];

  constructor(file: ProviderCatalogFile) {
    this.version = file.version;
    this.providers = file.providers.map(resolveEntry);
  }

  listProviders(): readonly ProviderEntry[] {
    return this.providers;
  }

  findProvider(providerId: string): ProviderEntry | undefined {
    return this.providers.find((provider) => provider.id === providerId);
  }

  getProvider(providerId: string): ProviderEntry {
    const provider = this.findProvider(providerId);
    if (!provider) {
      throw new OperatorError({
        code: 'not_found',
        reason: 'provider_unknown',
        message: `The provider "${providerId}" is not in the provider catalog. Choose one of: ${this.providers.map((entry) => entry.id).join(', ')}.`,
      });
    }
    return provider;
  }

  getProfile(providerId: string, profileId: string): LaunchProfile {
    const provider = this.getProvider(providerId);
    const profile = provider.profiles.find((entry) => entry.id === profileId);
    if (!profile) {
      throw new OperatorError({
        code: 'not_found',
        reason: 'profile_unknown',
        message: `${provider.displayName} has no launch profile "${profileId}". Choose one of: ${provider.profiles.map((entry) => entry.id).join(', ')}.`,
      });
    }
    return profile;
  }
}

/** The provider's default model: the first listed. Null for `command`, where the command decides. */
export function defaultModel(provider: ProviderEntry): string | null {
  return provider.models[0]?.id ?? null;
}

/**
 * A stable digest of everything that changes how the CLI is launched for this profile. Saved with an
 * admission and a session locator, it tells a resumed run whether it would launch what it was admitted
 * with. The model list and labels are left out: they do not change a launch.
 */
export function profileRevision(provider: ProviderEntry, profile: LaunchProfile): string {
  const launchShape = {
    kind: 'provider-profile-revision',
    version: 1,
    // The names are those of catalog version 1, so revisions saved by earlier consoles still match.
    provider: {
      id: provider.id,
      adapter: provider.definition.id,
      executable: provider.executable,
      homeVariable: provider.definition.home?.variable ?? null,
      homeDir: provider.definition.home?.folder ?? null,
      eventFormat: provider.definition.events.format,
    },
    profile: {
      id: profile.id,
      executable: profile.executable ?? null,
      args: profile.args,
      argsTemplate: profile.argsTemplate ?? null,
      env: profile.env,
      maxAttempts: profile.maxAttempts,
      retryBackoffBaseMs: profile.retryBackoffBaseMs,
      stopGraceMs: profile.stopGraceMs,
    },
  };
  return createHash('sha256').update(canonicalJson(launchShape)).digest('hex');
}

/** JSON with object keys sorted at every depth, so equal values always hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function parseProviderCatalog(json: unknown, source = 'provider catalog'): ProviderCatalog {
  if (typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'provider_catalog_invalid',
      message: `The provider catalog ${source} is version 1, written for an earlier console. In version ${catalogVersion} each provider names its definition (${definitionIds.join(', ')}) and keeps only its models and profiles: update the file or reinstall the console.`,
    });
  }
  const parsed = catalogSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'provider_catalog_invalid',
      message: `The provider catalog ${source} is not valid (${problems}). Fix the file or reinstall the console.`,
    });
  }
  return new ProviderCatalog(parsed.data);
}

/** Finds resources/providers/catalog.json from this module, in the source tree and in the build alike. */
export function defaultCatalogPath(fromDir = moduleDir(import.meta.url)): string {
  return findResourceFile(path.join('providers', 'catalog.json'), fromDir);
}

export function loadProviderCatalog(options: { path?: string } = {}): ProviderCatalog {
  const catalogPath = options.path ?? defaultCatalogPath();
  let text: string;
  try {
    text = readFileSync(catalogPath, 'utf8');
  } catch (error) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'provider_catalog_unreadable',
      message: `The provider catalog could not be read at ${catalogPath} (${(error as NodeJS.ErrnoException).code ?? 'error'}). Reinstall the console or pass the catalog's path.`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'provider_catalog_invalid',
      message: `The provider catalog at ${catalogPath} is not valid JSON (${(error as Error).message}). Fix the file or reinstall the console.`,
    });
  }
  return parseProviderCatalog(json, `at ${catalogPath}`);
}
