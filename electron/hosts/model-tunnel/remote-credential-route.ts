import { credentialDelivery, effectiveBaseUrl, type CredentialDelivery, type DeliverableConnection, type DeliveringDefinition } from '../../providers/credential-delivery';

/**
 * How a remote run's agent reaches its model (issue 28). Where the connection has a base URL (its
 * own, or OpenRouter's), the key stays on the operator's machine: the agent gets the relay's loopback
 * base URL in its sandbox (the same path as the connection's) and the run's tunnel token as its key,
 * delivered the way its CLI takes a base URL (credential-delivery.ts), and the console's model proxy
 * puts the key in the token's place on the console's side of the tunnel. Without a base URL (the CLI
 * talks to its provider's own API), or for the CLI's own login (its login files), there is nothing to
 * tunnel through: the credential is delivered to the host for the run and removed after, and the
 * environment's SSH host setting says so (renderer/features/environments/environment-labels.ts).
 */

export type RemoteCredentialRoute =
  | {
      kind: 'tunnel';
      /** Where the console's model proxy sends the requests: the connection's base URL. */
      upstreamBaseUrl: string;
      /** What the agent is given: the relay on its sandbox's loopback, with the connection's path. */
      agentBaseUrl: string;
    }
  | { kind: 'delivered' };

export function remoteCredentialRoute(definition: DeliveringDefinition, connection: DeliverableConnection, relayPort: number): RemoteCredentialRoute {
  const upstreamBaseUrl = effectiveBaseUrl(definition, connection);
  if (!upstreamBaseUrl) return { kind: 'delivered' };
  const basePath = new URL(upstreamBaseUrl).pathname.replace(/\/+$/, '');
  return { kind: 'tunnel', upstreamBaseUrl, agentBaseUrl: `http://127.0.0.1:${relayPort}${basePath}` };
}

/**
 * The delivery for an agent whose model traffic goes through the tunnel: its CLI's base-URL layout,
 * pointed at the relay, with the run's token where the key would be (redacted from the run's output
 * like a key, though it opens nothing once the run's tunnel is down).
 */
export function tunnelledDelivery(input: { definition: DeliveringDefinition; connection: DeliverableConnection; model: string; agentBaseUrl: string; runToken: string }): CredentialDelivery {
  return credentialDelivery({ definition: input.definition, connection: { ...input.connection, baseUrl: input.agentBaseUrl }, secret: input.runToken, model: input.model });
}
