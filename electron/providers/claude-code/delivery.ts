import { cliMaxRetries, emptyDelivery, openRouterAnthropicBase, type CredentialDeliveryPlan } from '../credential-delivery';

/**
 * Claude Code: an API key in ANTHROPIC_API_KEY (sent as `x-api-key`), or a long-lived subscription
 * token (`claude setup-token`) in CLAUDE_CODE_OAUTH_TOKEN; ANTHROPIC_BASE_URL for a gateway (the
 * origin; the SDK appends /v1/messages). OpenRouter takes its key as a bearer token
 * (ANTHROPIC_AUTH_TOKEN). No file.
 */
export const claudeCodeDelivery: CredentialDeliveryPlan = {
  files: [],
  openRouterBaseUrl: openRouterAnthropicBase,
  modelArgument: (model) => model,
  deliver({ connection, secret, baseUrl }) {
    const delivery = emptyDelivery();
    if (connection.provider === 'openrouter') delivery.secretEnv.ANTHROPIC_AUTH_TOKEN = secret;
    else if (connection.method === 'subscription_token') delivery.secretEnv.CLAUDE_CODE_OAUTH_TOKEN = secret;
    else delivery.secretEnv.ANTHROPIC_API_KEY = secret;
    if (baseUrl) delivery.plainEnv.ANTHROPIC_BASE_URL = baseUrl;
    delivery.plainEnv.DISABLE_AUTOUPDATER = '1';
    delivery.plainEnv.CLAUDE_CODE_MAX_RETRIES = String(cliMaxRetries);
    return delivery;
  },
};
