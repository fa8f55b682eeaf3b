import { z } from 'zod';

/**
 * SSH hosts (Settings → Hosts, issue 28): machines the operator names as `ssh` knows them, what the
 * console found when it last tested one, and a host key it was shown. The console runs the system
 * `ssh` for all of it; nothing here is a transport of its own.
 */

/** Where `ssh -G` says the name leads, with the operator's ssh config applied (aliases, User, Port). */
export const sshDestinationSchema = z.object({
  user: z.string(),
  hostname: z.string(),
  port: z.number().int().min(1).max(65_535),
  /** The jump host(s) from the config, when there are any ("none" is none). */
  proxyJump: z.string().nullable(),
});
export type SshDestination = z.infer<typeof sshDestinationSchema>;

/** A host key as `ssh-keygen -lf` names it: its type (ED25519, RSA, ECDSA) and SHA256 fingerprint. */
export const hostKeySchema = z.object({
  type: z.string(),
  fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/),
});
export type HostKey = z.infer<typeof hostKeySchema>;

/** The agent CLIs a host is asked about (the console's own definitions, by executable). */
export const hostCliSchema = z.object({
  /** The provider definition's id: codex, claude-code, pi, gemini-cli. */
  id: z.string(),
  displayName: z.string(),
  executable: z.string(),
  /** Null: not found on the PATH a non-interactive ssh session gets. */
  version: z.string().nullable(),
  testedVersion: z.string().nullable(),
});

/** What Test host found on the host. Every field came from the host and was parsed strictly. */
export const hostReportSchema = z.object({
  bubblewrap: z
    .object({
      path: z.string(),
      version: z.string().nullable(),
      /** Whether `bwrap --unshare-user … true` ran there: the sandbox needs user namespaces. */
      userNamespaces: z.boolean(),
      /** bwrap's own words when it could not make them. */
      refusal: z.string().nullable(),
    })
    .nullable(),
  git: z.object({ version: z.string() }).nullable(),
  /** Python 3, which the console's run supervisor there needs (absent in a report from before it was asked). */
  python: z.object({ version: z.string() }).nullable().optional(),
  clis: z.array(hostCliSchema),
  cores: z.number().int().min(1),
  home: z.string(),
  /** Free bytes on the remote home's file system. */
  homeFreeBytes: z.number().int().min(0),
  /** The PATH the report's programs were looked for on. */
  path: z.string(),
  /**
   * The remote account: its uid (0, root: its sandboxed runs run as an unprivileged user, started with
   * /usr/bin/setpriv, as when the console here runs as root) and whether setpriv is there. Absent in a
   * report from before it was asked.
   */
  account: z.object({ uid: z.number().int().min(0), setpriv: z.boolean() }).optional(),
});
export type HostReport = z.infer<typeof hostReportSchema>;

/**
 * What one Test host ended with. A host key ssh does not know, or one that changed, is an answer the
 * operator decides on (Trust, or a check with the host's owner), not a failure; a host that cannot be
 * reached or logged in to is an error (code `ssh_failed`) and leaves the last test as it was.
 */
export const hostTestSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('ready'), testedAt: z.number(), destination: sshDestinationSchema, report: hostReportSchema }),
  /** No known_hosts file knows the host: Trust writes this key into the console's own. */
  z.object({ outcome: z.literal('host_key_unknown'), testedAt: z.number(), destination: sshDestinationSchema, presented: hostKeySchema }),
  /**
   * The host showed a key other than the one a known_hosts file holds for it: refused, never replaced
   * from the console. `known` is the key on file (and where), `presented` the one the host sent now.
   */
  z.object({
    outcome: z.literal('host_key_changed'),
    testedAt: z.number(),
    destination: sshDestinationSchema,
    known: hostKeySchema.extend({ file: z.string(), line: z.number().int() }).nullable(),
    presented: hostKeySchema.nullable(),
  }),
]);
export type HostTest = z.infer<typeof hostTestSchema>;

export const hostSchema = z.object({
  id: z.string(),
  /** The name ssh is given, as the operator added it. */
  name: z.string(),
  addedAt: z.number(),
  /** The last Test host that got an answer (none yet: null). */
  lastTest: hostTestSchema.nullable(),
  /** The environments that name it (a host is not removed while one does). */
  environmentIds: z.array(z.string()),
});
export type Host = z.infer<typeof hostSchema>;
