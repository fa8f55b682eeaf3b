import path from 'node:path';
import { filesIn, operatorOverride } from '../home-layout';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderDefinition } from '../provider-definition';
import { firstDottedVersion } from '../version-line';
import { piDelivery } from './delivery';
import { parsePiEvent } from './events';
import { piLaunch } from './launch';

const home: ProviderHomeLayout = {
  variable: 'PI_CODING_AGENT_DIR',
  folder: 'pi-agent',
  operatorFiles(operatorHome, env) {
    const dir = operatorOverride(env, 'PI_CODING_AGENT_DIR', operatorHome) ?? path.join(operatorHome, '.pi', 'agent');
    return filesIn(dir, ['auth.json', 'models.json', 'settings.json']);
  },
};

/** Pi: `pi --mode json -p`, its home in PI_CODING_AGENT_DIR; it speaks to several providers' APIs. */
export const piDefinition = {
  id: 'pi',
  displayName: 'Pi',
  executable: 'pi',
  testedVersion: '0.73.1',
  ownProgram: false,
  connectionProviders: ['anthropic', 'openai', 'google', 'openrouter', 'custom'],
  home,
  launch: piLaunch(home),
  events: { format: 'pi-json', parse: parsePiEvent },
  // Pi passes the providers' API errors through; the shared rules read them.
  failurePatterns: {},
  delivery: piDelivery,
  apiUrls: ['https://api.openai.com/v1', 'https://api.anthropic.com', 'https://generativelanguage.googleapis.com', 'https://openrouter.ai/api/v1'],
  // `0.73.1` (on stderr)
  parseVersion: firstDottedVersion,
} as const satisfies ProviderDefinition;
