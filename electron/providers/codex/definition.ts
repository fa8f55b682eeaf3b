import path from 'node:path';
import { filesIn, operatorOverride } from '../home-layout';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderDefinition } from '../provider-definition';
import { firstDottedVersion } from '../version-line';
import { codexDelivery } from './delivery';
import { parseCodexEvent } from './events';
import { codexLaunch } from './launch';

const home: ProviderHomeLayout = {
  variable: 'CODEX_HOME',
  folder: 'codex-home',
  operatorFiles(operatorHome, env) {
    const dir = operatorOverride(env, 'CODEX_HOME', operatorHome) ?? path.join(operatorHome, '.codex');
    return filesIn(dir, ['auth.json', 'config.toml']);
  },
};

/** Codex CLI: `codex exec --json`, its home in CODEX_HOME. */
export const codexDefinition = {
  id: 'codex',
  displayName: 'Codex CLI',
  executable: 'codex',
  testedVersion: '0.171.0',
  ownProgram: false,
  connectionProviders: ['openai', 'openrouter', 'custom'],
  home,
  launch: codexLaunch(home),
  events: { format: 'codex-jsonl', parse: parseCodexEvent },
  failurePatterns: {
    // The ChatGPT backend's answer when a subscription's usage limit is reached.
    quota_exhausted: [/\busage_limit_reached\b/],
  },
  delivery: codexDelivery,
  apiUrls: ['https://api.openai.com/v1'],
  // `codex-cli 0.171.0`
  parseVersion: firstDottedVersion,
} as const satisfies ProviderDefinition;
