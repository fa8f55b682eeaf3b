import { z } from 'zod';
import { agentCliVersionSchema, agentSchema, agentTestResultSchema, catalogProviderSchema, homeModes } from '../entities';
import { channel, entityId, noInput } from './channel';

/** Agents and the catalog of CLIs they are built on: their settings, Test, verification and AI connection. */

const agentFields = {
  name: z.string().trim().min(1, 'an agent needs a name').max(100),
  providerId: z.string().min(1).max(100),
  model: z.string().trim().min(1).max(200),
  profileId: z.string().min(1).max(100),
  capacity: z.number().int().min(1).max(32).optional(),
  homeMode: z.enum(homeModes).optional(),
  environmentId: entityId.optional(),
  executablePath: z.string().trim().min(1).max(4096).nullable().optional(),
  commandArgs: z.array(z.string().max(10_000)).max(200).nullable().optional(),
};
const partialAgentFields = Object.fromEntries(
  Object.entries(agentFields).map(([key, schema]) => [key, schema.optional()]),
) as { [K in keyof typeof agentFields]: z.ZodOptional<(typeof agentFields)[K]> };

export const agentChannels = {
  getCatalog: channel(noInput, z.object({ providers: z.array(catalogProviderSchema) })),

  listAgents: channel(noInput, z.array(agentSchema)),
  getAgent: channel(z.strictObject({ agentId: entityId }), agentSchema),
  /**
   * A new agent. With `connectionId` it is bound to that AI connection from the start; a connection
   * shared with chosen agents is shared with the new one too (choosing it here is the operator saying so).
   */
  createAgent: channel(z.strictObject({ ...agentFields, connectionId: entityId.nullable().optional() }), agentSchema),
  /**
   * New agent's preview: the admission rules a first run of this agent would meet, checked on the
   * unsaved fields (and the AI connection it would be bound to). Saves and starts nothing.
   */
  checkAgentDraft: channel(z.strictObject({ ...agentFields, connectionId: entityId.nullable().optional() }), agentTestResultSchema),
  updateAgent: channel(z.strictObject({ agentId: entityId, ...partialAgentFields }), agentSchema),
  deleteAgent: channel(z.strictObject({ agentId: entityId }), z.object({ agentId: z.string() })),
  /**
   * The agent's Test: the admission rules (AI connection required, sandbox, launch profile) checked
   * without starting anything. Records the agent's verification too.
   */
  testAgent: channel(z.strictObject({ agentId: entityId }), agentTestResultSchema),
  /**
   * Verification: like testAgent, but a refused verification is not re-attempted until the agent's
   * configuration (its configRevision) changes; it answers the recorded state instead.
   */
  verifyAgent: channel(z.strictObject({ agentId: entityId }), agentSchema),
  /**
   * The agent's CLI version: runs its executable with `--version` (at most 10 s, in a confined
   * environment with no secrets) and compares it with the catalog's testedVersion. For the agent page.
   */
  getAgentCliVersion: channel(z.strictObject({ agentId: entityId }), agentCliVersionSchema),
  /** Binds an agent to an AI connection it may use (null unbinds). The agent's AI connection picker. */
  setAgentConnection: channel(z.strictObject({ agentId: entityId, connectionId: entityId.nullable() }), agentSchema),
} as const;
