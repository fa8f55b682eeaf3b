import { z } from 'zod';
import { channelNames, eventNames } from './contract';

/**
 * The hello a client of the console service says first on its local socket (the desktop app, `npm run
 * serve`, the Node stand-in client in tests), and the service's answer. The socket then carries the
 * browser host's messages unchanged (shared/wire.ts): requests, acks, responses and events.
 *
 * Both sides name two versions. The console version is the build's (package.json). The contract version
 * is a digest of the contract's channel and event names: a client and a service that disagree on it
 * cannot understand each other, and one that disagrees on the console version runs other code than the
 * client expects. Either mismatch is refused with `service_version_mismatch`, whose message names the
 * version the service runs and what the operator can do; the service and its runs are left alone.
 */

/** FNV-1a, 32 bits: shared/ has no Node crypto, and this is a fingerprint, not a secret. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** `c<channels>e<events>-<digest>`: readable enough to tell two contracts apart in a message. */
export const contractVersion = `c${channelNames.length}e${eventNames.length}-${fingerprint(
  JSON.stringify([[...channelNames].sort(), [...eventNames].sort()]),
)}`;

/** Who is attaching, as the service's log and its count of attached apps name it. */
export const serviceClientKinds = ['desktop-app', 'browser-launcher', 'node-client'] as const;
export type ServiceClientKind = (typeof serviceClientKinds)[number];
const clientLabels: Record<ServiceClientKind, string> = { 'desktop-app': 'desktop app', 'browser-launcher': 'console (npm run serve)', 'node-client': 'client' };

/**
 * Not strict, unlike the rest of the wire: a service must be able to read the hello of a newer client
 * (which may say more) well enough to tell it which version runs here.
 */
export const clientHelloSchema = z.object({
  type: z.literal('hello'),
  consoleVersion: z.string().min(1).max(100),
  contractVersion: z.string().min(1).max(100),
  /** One of serviceClientKinds from this version; any short name from another (it is only named back). */
  client: z.string().min(1).max(50),
  /**
   * The operator chose, for a service of another version, to let its runs finish and switch afterwards:
   * the service then takes no new run, answers `handing-over` and stops by itself when its last run
   * ends (a service of the same version ignores it and welcomes the client).
   */
  handover: z.literal('after-runs').optional(),
});
export type ClientHello = z.infer<typeof clientHelloSchema>;

/** What the service says of itself to a client it accepted. */
export const serviceWelcomeSchema = z.object({
  type: z.literal('welcome'),
  consoleVersion: z.string(),
  contractVersion: z.string(),
  pid: z.number().int().positive(),
  dataDir: z.string(),
  /** The browser address with its token: the socket is the operator's alone (0600 in a 0700 folder). */
  url: z.string(),
  startedAt: z.string(),
  /** Runs the service is running now (queued, preparing or running). */
  liveRuns: z.number().int().min(0),
});
export type ServiceWelcome = z.infer<typeof serviceWelcomeSchema>;

/**
 * What a service tells a client of another version before it refuses it (service_version_mismatch), so
 * that the client can offer the two ways on in its own words and commands. Loose, as the hello is: it
 * crosses versions. `handingOverTo`: the version it already hands over to once its runs end, if any.
 */
export const serviceOfAnotherVersionSchema = z.object({
  type: z.literal('other-version'),
  consoleVersion: z.string(),
  contractVersion: z.string(),
  pid: z.number().int().positive(),
  liveRuns: z.number().int().min(0),
  handingOverTo: z.string().nullable(),
});
export type ServiceOfAnotherVersion = z.infer<typeof serviceOfAnotherVersionSchema>;

/** The answer to a hello with `handover: 'after-runs'` from a client of another version. Loose: it crosses versions. */
export const serviceHandingOverSchema = z.object({
  type: z.literal('handing-over'),
  consoleVersion: z.string(),
  pid: z.number().int().positive(),
  /** The runs it finishes before it stops (0: it stops now). */
  liveRuns: z.number().int().min(0),
});
export type ServiceHandingOver = z.infer<typeof serviceHandingOverSchema>;

/**
 * What a client asks of the service itself, not of the core: `quit` is a launcher going away (the
 * service stops when no run is live and no other app is attached, and otherwise keeps its runs going),
 * `stop` stops it now (runs still going are stopped, as at any shutdown, and stranded runs can be resumed).
 */
export const serviceControlSchema = z.strictObject({
  type: z.literal('control'),
  id: z.number().int().nonnegative(),
  action: z.enum(['quit', 'stop']),
});
export type ServiceControl = z.infer<typeof serviceControlSchema>;

/** The answer to a control message, as the response's value. */
export const serviceControlResultSchema = z.object({
  stopping: z.boolean(),
  /** Live runs that keep the service going (0 when it is stopping). */
  liveRuns: z.number().int().min(0),
  /** Other apps attached that keep it going. */
  otherClients: z.number().int().min(0),
});
export type ServiceControlResult = z.infer<typeof serviceControlResultSchema>;

/** The refusal a client gets when its versions are not the service's: what runs, and the two ways on. */
export function versionMismatchMessage(service: Omit<ServiceOfAnotherVersion, 'type' | 'pid'>, client: ClientHello): string {
  const runs = service.liveRuns === 1 ? '1 run' : `${service.liveRuns} runs`;
  const who =
    `The console service running here is version ${service.consoleVersion} (contract ${service.contractVersion}); ` +
    `this ${(clientLabels as Record<string, string | undefined>)[client.client] ?? client.client} is version ${client.consoleVersion} (contract ${client.contractVersion}). `;
  if (service.handingOverTo !== null) {
    return (
      who +
      `It is finishing ${runs} and takes no new ones; version ${service.handingOverTo} starts by itself when ${service.liveRuns === 1 ? 'it ends' : 'they end'}. ` +
      'Start the console again then, or restart now: `npm run serve -- --restart-now` (runs still going are stopped and marked stranded, and each can be resumed).'
    );
  }
  return (
    who +
    `It is running ${runs}. Either let ${service.liveRuns === 1 ? 'it' : 'them'} finish and switch afterwards: ` +
    '`npm run serve -- --after-runs` (the service takes no new run, stops when its last run ends, and this version starts by itself then); ' +
    'or restart now: `npm run serve -- --restart-now` (runs still going are stopped and marked stranded, and each can be resumed).'
  );
}

/**
 * The desktop app and the console service's secrets (electron/shell/secrets-key.ts): `unlock` hands the
 * service the key the app keeps sealed in the OS keychain (base64 of 32 bytes), which the service
 * holds in memory only; its answer lists the secrets the app sealed with safeStorage before the service
 * existed (still sealed). `reseal` gives those back opened, for the service to seal with the handed key.
 * Only on the local socket (0600), only from the desktop app, never logged.
 */
export const serviceSecretsSchema = z.discriminatedUnion('action', [
  z.strictObject({
    type: z.literal('secrets'),
    id: z.number().int().nonnegative(),
    action: z.literal('unlock'),
    key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
    /** Set when the app's safeStorage has no keyring (Linux `basic_text`): the key is sealed with a publicly known password. */
    noKeyring: z.literal(true).optional(),
  }),
  z.strictObject({
    type: z.literal('secrets'),
    id: z.number().int().nonnegative(),
    action: z.literal('reseal'),
    secrets: z.array(z.strictObject({ ref: z.string().min(1).max(120), plain: z.string().min(1).max(100_000) })).max(1_000),
  }),
]);
export type ServiceSecrets = z.infer<typeof serviceSecretsSchema>;

export const serviceSecretsUnlockedSchema = z.object({ legacy: z.array(z.object({ ref: z.string(), ciphertext: z.string() })) });
export const serviceSecretsResealedSchema = z.object({ resealed: z.number().int().min(0) });

