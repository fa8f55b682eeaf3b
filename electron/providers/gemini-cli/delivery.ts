import path from 'node:path';
import { cliMaxRetries, emptyDelivery, jsonFile, type CredentialDeliveryPlan } from '../credential-delivery';

const settingsFile = path.join('.gemini', 'settings.json');

/**
 * Gemini CLI: GEMINI_API_KEY (sent as `x-goog-api-key`), GOOGLE_GEMINI_BASE_URL for a base URL (the
 * origin), and GEMINI_CLI_HOME/.gemini/settings.json selecting API-key auth (without it a headless
 * run stops at "Please set an Auth method"), with usage statistics and update checks off.
 * `general.maxAttempts` counts attempts, so it is retries + 1.
 */
export const geminiCliDelivery: CredentialDeliveryPlan = {
  files: [settingsFile],
  // Gemini CLI speaks only Google's API: it takes no OpenRouter connection.
  openRouterBaseUrl: null,
  modelArgument: (model) => model,
  deliver({ secret, baseUrl }) {
    const delivery = emptyDelivery();
    delivery.secretEnv.GEMINI_API_KEY = secret;
    if (baseUrl) delivery.plainEnv.GOOGLE_GEMINI_BASE_URL = baseUrl;
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: Math.min(10, cliMaxRetries + 1) },
    };
    delivery.files.push(jsonFile(settingsFile, settings));
    return delivery;
  },
};
