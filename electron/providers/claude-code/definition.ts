import path from 'node:path';
import { filesIn, operatorOverride } from '../home-layout';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderDefinition } from '../provider-definition';
import { firstDottedVersion } from '../version-line';
import { claudeCodeDelivery } from './delivery';
import { parseClaudeCodeEvent } from './events';
import { claudeCodeLaunch } from './launch';

const home: ProviderHomeLayout = {
  variable: 'CLAUDE_CONFIG_DIR',
  folder: 'claude-config',
  operatorFiles(operatorHome, env) {
    const dir = operatorOverride(env, 'CLAUDE_CONFIG_DIR', operatorHome);
    if (dir) return filesIn(dir, ['.credentials.json', '.claude.json', 'settings.json']);
    // Without CLAUDE_CONFIG_DIR, Claude Code keeps its global state file beside ~/.claude; with
    // it (as in the task) that file moves inside the folder.
    return [
      { source: path.join(operatorHome, '.claude', '.credentials.json'), relativePath: '.credentials.json' },
      { source: path.join(operatorHome, '.claude.json'), relativePath: '.claude.json' },
      { source: path.join(operatorHome, '.claude', 'settings.json'), relativePath: 'settings.json' },
    ];
  },
};

/** Claude Code: `claude -p --output-format stream-json`, its home in CLAUDE_CONFIG_DIR. */
export const claudeCodeDefinition = {
  id: 'claude-code',
  displayName: 'Claude Code',
  executable: 'claude',
  testedVersion: '2.1.197',
  ownProgram: false,
  connectionProviders: ['anthropic', 'openrouter', 'custom'],
  home,
  launch: claudeCodeLaunch(home),
  events: { format: 'claude-stream-json', parse: parseClaudeCodeEvent },
  failurePatterns: {
    auth_required: [/please run \/login/i],
    // The code the Claude stream parser gives a rejected rate_limit_event.
    quota_exhausted: [/\brate_limit_rejected\b/],
    configuration_incomplete: [/cannot be used with root\/sudo privileges/i],
  },
  delivery: claudeCodeDelivery,
  apiUrls: ['https://api.anthropic.com'],
  // `2.1.197 (Claude Code)`
  parseVersion: firstDottedVersion,
} as const satisfies ProviderDefinition;
