import path from 'node:path';
import { operatorOverride } from '../home-layout';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderDefinition } from '../provider-definition';
import { firstDottedVersion } from '../version-line';
import { geminiCliDelivery } from './delivery';
import { parseGeminiCliEvent } from './events';
import { geminiCliLaunch } from './launch';

const home: ProviderHomeLayout = {
  variable: 'GEMINI_CLI_HOME',
  folder: 'gemini-home',
  operatorFiles(operatorHome, env) {
    // GEMINI_CLI_HOME replaces the home folder; the CLI's files live in `.gemini` beneath it.
    // `.env` is where an API-key login keeps GEMINI_API_KEY (and a gateway's GOOGLE_GEMINI_BASE_URL):
    // Gemini CLI reads <home>/.gemini/.env when no project folder has one.
    const base = operatorOverride(env, 'GEMINI_CLI_HOME', operatorHome) ?? operatorHome;
    return ['settings.json', 'oauth_creds.json', 'google_accounts.json', '.env'].map((name) => ({
      source: path.join(base, '.gemini', name),
      relativePath: path.join('.gemini', name),
    }));
  },
};

/** Gemini CLI: `gemini -o stream-json`, its home in GEMINI_CLI_HOME (its files in `.gemini` there). */
export const geminiCliDefinition = {
  id: 'gemini-cli',
  displayName: 'Gemini CLI',
  executable: 'gemini',
  testedVersion: '0.61.0',
  ownProgram: false,
  connectionProviders: ['google', 'custom'],
  home,
  launch: geminiCliLaunch(home),
  events: { format: 'gemini-stream-json', parse: parseGeminiCliEvent },
  failurePatterns: {
    auth_required: [
      /\bplease set an auth method\b/i,
      /\bGEMINI_API_KEY environment variable not found\b/i,
      // Gemini CLI 0.61, API-key auth with no key (exit 41): "When using Gemini API, you must specify
      // the GEMINI_API_KEY environment variable."
      /\bmust specify the GEMINI_API_KEY\b/i,
    ],
    // A headless run in a folder it does not trust (exit 55); the launch passes --skip-trust.
    configuration_incomplete: [/not running in a trusted directory/i],
  },
  delivery: geminiCliDelivery,
  apiUrls: ['https://generativelanguage.googleapis.com'],
  // `0.61.0`
  parseVersion: firstDottedVersion,
} as const satisfies ProviderDefinition;
