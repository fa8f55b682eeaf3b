import { z } from 'zod';
import { hostKeySchema, hostSchema, hostTestSchema } from '../hosts';
import { maxSshHostNameLength, parseSshHostName } from '../ssh-host-name';
import { channel, entityId, noInput } from './channel';

/** SSH hosts (Settings → Hosts, issue 28): add one by the name ssh knows, test it, trust its key, remove it. */

/** A destination for `ssh`; refused unless shared/ssh-host-name.ts accepts it (never an option). */
const hostName = z
  .string()
  .max(maxSshHostNameLength)
  .superRefine((value, context) => {
    const parsed = parseSshHostName(value);
    if (!parsed.ok) context.addIssue({ code: 'custom', message: parsed.problem });
  });

export const hostChannels = {
  listHosts: channel(noInput, z.array(hostSchema)),
  /** Adds a host once `ssh -G` resolves the name; nothing is connected to until it is tested. */
  addHost: channel(z.strictObject({ name: hostName }), hostSchema),
  /** Refused while an environment names the host. Keys it trusted stay in the console's known_hosts. */
  removeHost: channel(z.strictObject({ hostId: entityId }), z.object({ hostId: z.string() })),
  /**
   * Connects with the system ssh (BatchMode, strict host key checking) and asks the host what it has.
   * An unknown or changed host key is an answer (its fingerprints), not a connection.
   */
  testHost: channel(z.strictObject({ hostId: entityId }), hostTestSchema),
  /**
   * The operator compared the fingerprint and trusts it: the key the last test was shown (only if it
   * is still the one named here) is written to the console's known_hosts. Never replaces a key.
   */
  trustHostKey: channel(z.strictObject({ hostId: entityId, fingerprint: hostKeySchema.shape.fingerprint }), hostSchema),
} as const;
