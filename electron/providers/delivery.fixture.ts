import type { DeliverableConnection } from './credential-delivery';
import { credentialDelivery, modelArgumentFor } from './credential-delivery';
import type { ProviderDefinition } from './provider-definition';

/** Test helpers for each CLI's delivery: a key, the delivery for a connection, a delivered file's text. */
export const key = 'sk-test-abcdefghijklmnopqrstuvwxyz0123';

export type Delivery = ReturnType<typeof credentialDelivery>;

export function deliver(definition: ProviderDefinition, connection: DeliverableConnection, model = 'm'): Delivery {
  return credentialDelivery({ definition, connection, secret: key, model });
}

export function file(delivery: Delivery, name: string): string {
  return delivery.files.find((entry) => entry.relativePath === name)?.content as string;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The delivery and model argument for an API-key connection through `baseUrl`, as e2e/agents proves them. */
export function throughBaseUrl(definition: ProviderDefinition, provider: DeliverableConnection['provider'], baseUrl: string, model = 'm-1') {
  const connection = { provider, method: 'api_key' as const, baseUrl };
  return { ...deliver(definition, connection, model), modelArgument: modelArgumentFor(definition, connection, model) };
}
