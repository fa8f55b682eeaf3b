import { cliMaxRetries, consoleProviderName, emptyDelivery, jsonFile, openRouterOpenAiBase, type CredentialDeliveryPlan, type DeliverableConnection } from '../credential-delivery';

/** Pi reads a custom provider's key from this variable (models.json names it). */
export const piApiKeyEnv = 'OPERATOR_CONSOLE_API_KEY';

/**
 * Pi. Through a base URL: a custom OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json whose
 * `apiKey` names the variable holding the key (Pi sends it as a bearer token). Its one model is the
 * agent's model id exactly as the operator chose it (a gateway names its own models, slashes and all:
 * `anthropic/claude-sonnet-4-6` is what the server is asked for), and Pi is launched with
 * `operator-console/<model>`: Pi reads the part before the first slash as the provider and matches the
 * rest against that provider's ids. Note Pi reads `apiKey` as "the variable of that name if set, else
 * the literal text", so the variable must always be delivered with the file. To a provider's own API:
 * the key in the variable Pi reads for that provider. settings.json sets Pi's retries.
 */
export const piDelivery: CredentialDeliveryPlan = {
  files: ['models.json', 'settings.json'],
  openRouterBaseUrl: openRouterOpenAiBase,
  modelArgument: (model, baseUrl) => (baseUrl ? `${consoleProviderName}/${model}` : model),
  deliver({ connection, secret, baseUrl, model }) {
    const delivery = emptyDelivery();
    if (baseUrl) {
      delivery.secretEnv[piApiKeyEnv] = secret;
      const models = {
        providers: {
          [consoleProviderName]: {
            baseUrl,
            api: 'openai-completions',
            apiKey: piApiKeyEnv, // the variable's name: the file never holds the key
            models: [{ id: model, name: model, reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
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
