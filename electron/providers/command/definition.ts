import type { ProviderDefinition } from '../provider-definition';
import { firstDottedVersion } from '../version-line';
import { commandDelivery } from './delivery';
import { commandLaunch } from './launch';

/**
 * Any program of the operator's own: each profile (or the agent) names the executable and its argv
 * template. It has no home, no sessions and no version the console checks; its output is plain text
 * unless its profile names one of the CLIs' event formats. It may be a wrapper around one of the
 * CLIs, so its failures are read with every CLI's patterns (definitions.ts).
 */
export const commandDefinition = {
  id: 'command',
  displayName: 'Command',
  executable: null,
  testedVersion: null,
  ownProgram: true,
  connectionProviders: ['openai', 'anthropic', 'google', 'openrouter', 'custom'],
  home: null,
  launch: commandLaunch,
  events: { format: 'text', parse: null },
  failurePatterns: {},
  delivery: commandDelivery,
  // No provider API of its own: an AI connection's base URL, or the operator's allow-list.
  apiUrls: [],
  parseVersion: firstDottedVersion,
} as const satisfies ProviderDefinition;
