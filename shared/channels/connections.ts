import { z } from 'zod';
import { aiConnectionSchema, connectionAgentScopes, connectionMethods, connectionOwnerships, connectionProviders, connectionTestResultSchema, vaultInfoSchema } from '../entities';
import { channel, entityId, noInput } from './channel';

/** AI connections: the keys and base URLs managed runs use, and where secrets are kept. */

const connectionName = z.string().trim().min(1, 'an AI connection needs a name').max(100);
/** The key or token. Accepted on the way in only: no output schema has a field that could carry it. */
const connectionSecret = z
  .string()
  .trim()
  .min(1, 'enter the key or token')
  .max(8192)
  .refine((value) => !/\s/.test(value), 'a key or token has no spaces or line breaks');
/** A gateway or local server (OpenAI-compatible, Anthropic, Gemini); http(s) only, no credentials in it. */
const connectionBaseUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// address without a query, fragment or credentials');
const connectionFields = {
  name: connectionName,
  provider: z.enum(connectionProviders),
  method: z.enum(connectionMethods),
  baseUrl: connectionBaseUrl.nullable().optional(),
  ownership: z.enum(connectionOwnerships),
  agentScope: z.enum(connectionAgentScopes),
  /** With agentScope `chosen`: the agents that may use it. */
  agentIds: z.array(entityId).max(1000).optional(),
};

export const connectionChannels = {
  listConnections: channel(noInput, z.array(aiConnectionSchema)),
  /**
   * The connections an agent may use (allowed for it, of a provider its CLI speaks, not revoked or
   * expired), plus the one it is bound to whatever its state: what the picker lists.
   */
  listConnectionsForAgent: channel(z.strictObject({ agentId: entityId }), z.array(aiConnectionSchema)),
  createConnection: channel(z.strictObject({ ...connectionFields, secret: connectionSecret }), aiConnectionSchema),
  /** Every field but the id is optional; an absent secret keeps the stored one. `revoked` retires it (or brings it back). */
  updateConnection: channel(
    z.strictObject({
      connectionId: entityId,
      name: connectionName.optional(),
      provider: z.enum(connectionProviders).optional(),
      method: z.enum(connectionMethods).optional(),
      secret: connectionSecret.optional(),
      baseUrl: connectionBaseUrl.nullable().optional(),
      ownership: z.enum(connectionOwnerships).optional(),
      agentScope: z.enum(connectionAgentScopes).optional(),
      agentIds: z.array(entityId).max(1000).optional(),
      revoked: z.boolean().optional(),
    }),
    aiConnectionSchema,
  ),
  /** Agents bound to it are unbound (their next runs in a sandbox are refused until they choose another). */
  deleteConnection: channel(z.strictObject({ connectionId: entityId }), z.object({ connectionId: z.string() })),
  /** Checks the key's shape and, with a base URL, the provider's models endpoint there; the result is stored. */
  testConnection: channel(z.strictObject({ connectionId: entityId }), connectionTestResultSchema),
  /** Where secrets are kept at rest, for the AI connections pane to say plainly. */
  getVaultInfo: channel(noInput, vaultInfoSchema),
} as const;
