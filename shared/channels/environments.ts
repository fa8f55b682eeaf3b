import { z } from 'zod';
import { maxAllowedHosts, parseAllowedHost } from '../allowed-hosts';
import { environmentKinds, environmentSchema, networkModes } from '../entities';
import { channel, entityId, noInput } from './channel';

/** Environments (Settings → Environments): where runs execute, and what their network may reach. */

/** One allowed host as the operator wrote it; refused, with what to write instead, unless shared/allowed-hosts.ts accepts it. */
const allowedHost = z
  .string()
  .max(300)
  .superRefine((value, context) => {
    const parsed = parseAllowedHost(value);
    if (!parsed.ok) context.addIssue({ code: 'custom', message: `“${value.slice(0, 80)}”: ${parsed.problem}` });
  });

const environmentFields = {
  name: z.string().trim().min(1, 'an environment needs a name').max(100),
  kind: z.enum(environmentKinds),
  networkMode: z.enum(networkModes),
  allowedHosts: z.array(allowedHost).max(maxAllowedHosts),
  /** Forced on for a sandboxed environment (shared/connection-rule.ts): only a local one can turn it off. */
  requiresConnection: z.boolean(),
  /** An SSH host's id (Settings → Hosts), or null for this machine. */
  hostId: entityId.nullable(),
};

export const environmentChannels = {
  listEnvironments: channel(noInput, z.array(environmentSchema)),
  /** A new environment; what is not given is a sandboxed one with provider-only network and no allowed hosts. */
  createEnvironment: channel(
    z.strictObject({
      name: environmentFields.name,
      kind: environmentFields.kind.optional(),
      networkMode: environmentFields.networkMode.optional(),
      allowedHosts: environmentFields.allowedHosts.optional(),
      requiresConnection: environmentFields.requiresConnection.optional(),
      hostId: environmentFields.hostId.optional(),
    }),
    environmentSchema,
  ),
  /**
   * Every field but the id is optional. Runs admitted before keep what they were admitted with; new
   * runs get the change. Notices about a host it blocked resolve once the host is allowed.
   */
  updateEnvironment: channel(
    z.strictObject({
      environmentId: entityId,
      name: environmentFields.name.optional(),
      kind: environmentFields.kind.optional(),
      networkMode: environmentFields.networkMode.optional(),
      allowedHosts: environmentFields.allowedHosts.optional(),
      requiresConnection: environmentFields.requiresConnection.optional(),
      hostId: environmentFields.hostId.optional(),
    }),
    environmentSchema,
  ),
  /** Refused for a built-in environment, and while an agent is in it (naming the agents). */
  deleteEnvironment: channel(z.strictObject({ environmentId: entityId }), z.object({ environmentId: z.string() })),
} as const;
