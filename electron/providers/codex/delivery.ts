import { cliMaxRetries, consoleProviderName, emptyDelivery, openRouterOpenAiBase, tomlString, type CredentialDeliveryPlan } from '../credential-delivery';

/**
 * Codex. Through a base URL: a custom model provider in CODEX_HOME/config.toml that speaks the
 * Responses API there and reads its key from CODEX_API_KEY (`env_key`); no auth.json is needed. To
 * OpenAI itself: auth.json with the key (what `codex login --with-api-key` writes) and CODEX_API_KEY for
 * `codex exec`. Either way `cli_auth_credentials_store = "file"` keeps Codex from reaching for the OS
 * keyring, and analytics, plugins and the update check are off (no traffic but the model's).
 */
export const codexDelivery: CredentialDeliveryPlan = {
  files: ['auth.json', 'config.toml'],
  openRouterBaseUrl: openRouterOpenAiBase,
  modelArgument: (model) => model,
  deliver({ secret, baseUrl, model }) {
    const delivery = emptyDelivery();
    delivery.secretEnv.CODEX_API_KEY = secret;
    const lines = [
      '# Written by Operator Console for one run (AI connection delivery); removed when the run ends.',
      ...(baseUrl ? [`model = ${tomlString(model)}`, `model_provider = ${tomlString(consoleProviderName)}`] : []),
      'cli_auth_credentials_store = "file"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '# The curated plugins marketplace is synced from github.com at start; a run reaches only its model.',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
    ];
    if (baseUrl) {
      lines.push(
        '',
        `[model_providers.${consoleProviderName}]`,
        'name = "Operator Console AI connection"',
        `base_url = ${tomlString(baseUrl)}`,
        'wire_api = "responses"',
        'env_key = "CODEX_API_KEY"',
        `request_max_retries = ${cliMaxRetries}`,
        `stream_max_retries = ${cliMaxRetries}`,
      );
    } else {
      delivery.files.push({ relativePath: 'auth.json', content: `${JSON.stringify({ OPENAI_API_KEY: secret }, null, 2)}\n` });
    }
    delivery.files.push({ relativePath: 'config.toml', content: `${lines.join('\n')}\n` });
    return delivery;
  },
};
