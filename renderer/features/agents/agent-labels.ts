import type { Agent, Environment } from '../../../shared/entities';

const providerNames: Record<string, string> = {
  codex: 'Codex',
  'claude-code': 'Claude Code',
  claude: 'Claude Code',
  pi: 'Pi',
  gemini: 'Gemini CLI',
  'gemini-cli': 'Gemini CLI',
  command: 'Command',
};

/** The CLI's name as operators know it; unknown providers show their id. */
export function providerName(providerId: string): string {
  return providerNames[providerId] ?? providerId;
}

export function homeModeLabel(mode: Agent['homeMode']): string {
  return mode === 'isolated' ? 'Isolated' : 'Your own login';
}

/** An environment's name, with its kind when the name does not already say it. */
export function environmentLabel(environment: Pick<Environment, 'name' | 'kind'>): string {
  const kind = environmentKindLabel(environment.kind);
  return kind.toLowerCase().startsWith(environment.name.toLowerCase()) ? kind : `${environment.name} (${kind})`;
}

export function environmentKindLabel(kind: Environment['kind']): string {
  return kind === 'sandboxed' ? 'Sandboxed' : 'Local, no sandbox';
}

export function networkModeLabel(mode: Environment['networkMode']): string {
  switch (mode) {
    case 'open':
      return 'Open network';
    case 'none':
      return 'No network';
    case 'provider-only':
      return 'Provider API only';
  }
}
