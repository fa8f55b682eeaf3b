import type { AdapterKind, ProviderEntry } from '../catalog';
import type { ProviderAdapter } from './adapter';
import { createClaudeCodeAdapter } from './claude-code-adapter';
import { createCodexAdapter } from './codex-adapter';
import { createCommandAdapter } from './command-adapter';
import { createGeminiCliAdapter } from './gemini-cli-adapter';
import { createPiAdapter } from './pi-adapter';

const factories: Record<AdapterKind, (provider: ProviderEntry) => ProviderAdapter> = {
  codex: createCodexAdapter,
  'claude-code': createClaudeCodeAdapter,
  pi: createPiAdapter,
  'gemini-cli': createGeminiCliAdapter,
  command: createCommandAdapter,
};

/** The adapter for a catalog entry, chosen by its `adapter` field (so a catalog may add variants). */
export function adapterFor(provider: ProviderEntry): ProviderAdapter {
  return factories[provider.adapter](provider);
}
