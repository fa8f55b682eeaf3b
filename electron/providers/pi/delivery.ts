import type { DeliverableConnection } from '../../connections/credential-delivery';
import { cliMaxRetries, consoleProviderName, emptyDelivery, jsonFile, openRouterOpenAiBase } from '../../connections/credential-delivery';
import type { CredentialDeliveryPlan } from '../provider-definition';

/** Pi reads a custom provider's key from this variable (models.json names it). */
export const piApiKeyEnv = 'OPERATOR_CONSOLE_API_KEY';

/**
 * Pi. Through a base URL: a custom OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json whose
 * `apiKey` names the variable holding the key (Pi sends it as a bearer token); the model is then
 * `operator-console/<model>` (the model's own `provider/` prefix, as the catalog lists Pi's models, is
 * what that server does not know). Note Pi reads `apiKey` as "the variable of that name if set, else
 * the literal text", so the variable must always be delivered with the file. To a provider's own API:
 * the key in the variable Pi reads for that provider. settings.json sets Pi's retries.
 */
export const piDelivery: CredentialDeliveryPlan = {
  files: ['models.json', 'settings.json'],
  openRouterBaseUrl: openRouterOpenAiBase,
  modelArgument: (model, baseUrl) => (baseUrl ? `${consoleProviderName}/${serverModelId(model)}` : model),
  deliver({ connection, secret, baseUrl, model }) {
    const delivery = emptyDelivery();
    if (baseUrl) {
      delivery.secretEnv[piApiKeyEnv] = secret;
      const id = serverModelId(model);
      const models = {
        providers: {
          [consoleProviderName]: {
            baseUrl,
            api: 'openai-completions',
            apiKey: piApiKeyEnv, // the variable's name: the file never holds the key
            models: [{ id, name: id, reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
          },
        },
      };
      delivery.files.push(jsonFile('models.json', models));
    } else {
      delivery.secretEnv[piKeyVariable(connection)] = secret;
    }
    const settings = { retry: { enabled: cliMaxRetries > 0, maxRetries: cliMaxRetries, provider: { maxRetries: 0 } } };
    delivery.files.push(jsonFile('settings.json', settings));
    return delivery;
  },
};

function piKeyVariable(connection: DeliverableConnection): string {
  switch (connection.provider) {
    case 'anthropic':
      return connection.method === 'subscription_token' ? 'ANTHROPIC_OAUTH_TOKEN' : 'ANTHROPIC_API_KEY';
    case 'google':
      return 'GEMINI_API_KEY';
    case 'openrouter':
      return 'OPENROUTER_API_KEY';
    case 'openai':
    case 'custom':
      return 'OPENAI_API_KEY';
  }
}

/** `openai/gpt-5.5` → `gpt-5.5`: the catalog's `provider/model` for Pi, as a server knows the model. */
function serverModelId(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(slash + 1) : model;
}
