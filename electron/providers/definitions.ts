import { connectionMethods, connectionProviders } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { claudeCodeDefinition } from './claude-code/definition';
import { codexDefinition } from './codex/definition';
import { commandDefinition } from './command/definition';
import type { FailureCode, FailurePatterns } from './failure-classifier';
import { geminiCliDefinition } from './gemini-cli/definition';
import { piDefinition } from './pi/definition';
import type { FormatParser, ProviderDefinition } from './provider-definition';

/**
 * Every CLI the console can drive, one definition each (provider-definition.ts). A catalog entry
 * names one of these; adding a CLI is one folder, its entry here, one catalog entry and its tests.
 */
export const providerDefinitions = [codexDefinition, claudeCodeDefinition, piDefinition, geminiCliDefinition, commandDefinition] as const;

export type DefinitionId = (typeof providerDefinitions)[number]['id'];
/** The stream formats the definitions parse, and `text`. */
export type EventFormat = (typeof providerDefinitions)[number]['events']['format'];

export const definitionIds = providerDefinitions.map((definition) => definition.id) as [DefinitionId, ...DefinitionId[]];
export const eventFormats = [...new Set(providerDefinitions.map((definition) => definition.events.format))] as [EventFormat, ...EventFormat[]];

export function findDefinition(id: string): ProviderDefinition | undefined {
  return providerDefinitions.find((definition) => definition.id === id);
}

export function getDefinition(id: string): ProviderDefinition {
  const definition = findDefinition(id);
  if (!definition) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'provider_definition_unknown',
      message: `The console has no definition "${id}" for a CLI. Choose one of: ${definitionIds.join(', ')}.`,
    });
  }
  return definition;
}

/** The parser for a stream format (a `command` profile may name any CLI's); null for text or an unknown one. */
export function eventParserFor(format: string): FormatParser | null {
  return providerDefinitions.find((definition) => definition.events.format === format)?.events.parse ?? null;
}

/** Every CLI's home variable: confinement reserves them all, so no profile can move a home. */
export function providerHomeVariableNames(): string[] {
  return providerDefinitions.flatMap((definition) => (definition.home ? [definition.home.variable] : []));
}

/**
 * Every variable a managed AI connection's delivery can set for any CLI (the key's variable, a base
 * URL's, the switches that go with them), found by asking each definition's delivery for every kind
 * of connection, with and without a base URL. The console sets these itself: no variable layer may.
 */
export function deliveredVariableNames(): string[] {
  const names = new Set<string>();
  for (const definition of providerDefinitions) {
    for (const provider of connectionProviders) {
      for (const method of connectionMethods) {
        for (const baseUrl of [null, 'http://127.0.0.1:1']) {
          const parts = definition.delivery.deliver({ connection: { provider, method, baseUrl }, secret: 'probe', model: 'probe', baseUrl });
          for (const name of [...Object.keys(parts.secretEnv), ...Object.keys(parts.plainEnv)]) names.add(name);
        }
      }
    }
  }
  return [...names].sort();
}

/**
 * The failure patterns a run of this definition is read with: its own, or for a program of the
 * operator's own (which may wrap any of the CLIs) every definition's.
 */
export function failurePatternsFor(definition: ProviderDefinition): FailurePatterns {
  if (!definition.ownProgram) return definition.failurePatterns;
  const merged: Partial<Record<FailureCode, RegExp[]>> = {};
  for (const each of providerDefinitions) {
    for (const [code, patterns] of Object.entries(each.failurePatterns) as Array<[FailureCode, readonly RegExp[]]>) {
      (merged[code] ??= []).push(...patterns);
    }
  }
  return merged;
}
