import { emptyDelivery, openRouterOpenAiBase, stripTrailingSlash, type CredentialDeliveryPlan } from '../credential-delivery';

/**
 * A command of the operator's own has no provider home: it gets the key in the variable its
 * provider's SDKs read, and the base URL in theirs. No file.
 */
export const commandDelivery: CredentialDeliveryPlan = {
  files: [],
  openRouterBaseUrl: openRouterOpenAiBase,
  modelArgument: (model) => model,
  deliver({ connection, secret }) {
    const delivery = emptyDelivery();
    const baseUrl = connection.baseUrl ? stripTrailingSlash(connection.baseUrl) : null;
    switch (connection.provider) {
      case 'anthropic':
        delivery.secretEnv[connection.method === 'subscription_token' ? 'CLAUDE_CODE_OAUTH_TOKEN' : 'ANTHROPIC_API_KEY'] = secret;
        if (baseUrl) delivery.plainEnv.ANTHROPIC_BASE_URL = baseUrl;
        break;
      case 'google':
        delivery.secretEnv.GEMINI_API_KEY = secret;
        if (baseUrl) delivery.plainEnv.GOOGLE_GEMINI_BASE_URL = baseUrl;
        break;
      case 'openrouter':
        delivery.secretEnv.OPENROUTER_API_KEY = secret;
        delivery.secretEnv.OPENAI_API_KEY = secret;
        delivery.plainEnv.OPENAI_BASE_URL = baseUrl ?? openRouterOpenAiBase;
        break;
      case 'openai':
      case 'custom':
        delivery.secretEnv.OPENAI_API_KEY = secret;
        if (baseUrl) delivery.plainEnv.OPENAI_BASE_URL = baseUrl;
        break;
    }
    return delivery;
  },
};
