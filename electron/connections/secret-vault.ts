import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, chmodSync, fstatSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { VaultInfo, VaultKind } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { Logger } from '../platform/log';
import { logRedaction } from '../platform/log-redaction';

/**
 * Where AI connection secrets are kept at rest. The ledger holds only a sealed secret
 * (`<vault kind>:<base64 ciphertext>`); the vault that sealed it is the only thing that can open it.
 *
 * - The console service with the desktop app attached: AES-256-GCM with a key the app keeps sealed by
 *   Electron's safeStorage (the OS keychain) and hands to the service (HandedKeyVault, shell/secrets-key.ts).
 * - Otherwise (browser host; the desktop app when safeStorage is unavailable): AES-256-GCM with a random
 *   32-byte key in `<dataDir>/connection-secrets.key`, readable by the operator's user only.
 * - Before the service, the desktop app sealed with safeStorage directly (`electron-safe-storage`):
 *   the app opens those and the service seals them again with its key (connections/desktop-secrets.ts).
 */
export interface SecretVault {
  readonly kind: VaultKind;
  /** False when the store protects nothing (Electron's `basic_text` backend on Linux). */
  readonly protects: boolean;
  /** What the operator should know about this store, said in the AI connections pane. */
  readonly warning?: string | undefined;
  /** How the secrets are kept, in plain words. */
  readonly description: string;
  encrypt(plain: string): Buffer;
  decrypt(ciphertext: Buffer): string;
}

export const keyFileName = 'connection-secrets.key';
const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

/**
 * AES-256-GCM with a key file beside the ledger. A copy of the ledger alone (a backup, a bug report)
 * reveals no secret; someone who can read both the key file and the ledger can. The key file is made
 * on first use with mode 0600; a key file found with wider permissions is narrowed to 0600 (and the
 * pane says so), and one that is not a plain 32-byte file owned by this user is refused.
 */
export class KeyFileVault implements SecretVault {
  readonly kind = 'aes-256-gcm-key-file' as const;
  readonly protects = true;
  readonly keyFile: string;
  private key: Buffer | null = null;
  private widened: string | null = null;
  /** Why the key file cannot be used; the console still starts, and says so where secrets are used. */
  private refusal: OperatorError | null = null;

  constructor(
    dataDir: string,
    private readonly log?: Logger,
  ) {
    this.keyFile = path.join(dataDir, keyFileName);
    // Checked at start, so a key file that other users could read is narrowed before any secret is used.
    try {
      if (this.exists()) this.key = this.readKey();
    } catch (error) {
      if (!(error instanceof OperatorError)) throw error;
      this.refusal = error;
      this.log?.warn('connection secrets key file refused', { keyFile: this.keyFile, reason: error.message });
    }
  }

  get description(): string {
    return (
      `Secrets are encrypted with AES-256-GCM. The key is the file ${this.keyFile}, readable only by your user ` +
      'account. Anyone who can read both that file and the ledger can read the secrets; keep the data directory private.'
    );
  }

  get warning(): string | undefined {
    return this.refusal?.message ?? this.widened ?? undefined;
  }

  encrypt(plain: string): Buffer {
    return sealWithKey(this.loadKey({ create: true }), plain);
  }

  decrypt(sealed: Buffer): string {
    return openWithKey(this.loadKey({ create: false }), sealed, `The stored secret does not match the key in ${this.keyFile} (was the key file replaced?).`);
  }

  private exists(): boolean {
    try {
      lstatSync(this.keyFile);
      return true;
    } catch {
      return false;
    }
  }

  private loadKey(options: { create: boolean }): Buffer {
    if (this.key) return this.key;
    if (this.refusal) throw this.refusal;
    if (!this.exists()) {
      if (!options.create) throw unreadable(`The key file ${this.keyFile} is missing, so stored secrets cannot be read.`);
      this.key = this.createKey();
    } else {
      this.key = this.readKey();
    }
    return this.key;
  }

  private createKey(): Buffer {
    const key = randomBytes(keyBytes);
    // O_EXCL: never overwrite a key another console made a moment ago (its secrets would be lost).
    const fd = openSync(this.keyFile, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, key);
    } finally {
      closeSync(fd);
    }
    chmodSync(this.keyFile, 0o600); // whatever the umask said
    this.log?.info('connection secrets key file created', { keyFile: this.keyFile });
    return key;
  }

  private readKey(): Buffer {
    const link = lstatSync(this.keyFile);
    if (!link.isFile()) throw refused(`${this.keyFile} is not a plain file (a link or a folder). Remove it; the console makes a new key file.`);
    const fd = openSync(this.keyFile, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    try {
      const stat = fstatSync(fd);
      if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
        throw refused(`${this.keyFile} belongs to another user. The console uses only a key file of your own.`);
      }
      if ((stat.mode & 0o077) !== 0) {
        const was = (stat.mode & 0o777).toString(8).padStart(4, '0');
        chmodSync(this.keyFile, 0o600);
        this.widened = `The key file ${this.keyFile} could be read by other users (mode ${was}); the console restricted it to 0600. Secrets saved before may have been read: consider replacing them.`;
        this.log?.warn('connection secrets key file had wider permissions; restricted to 0600', { keyFile: this.keyFile, mode: was });
      }
      const key = readFileSync(fd);
      if (key.length !== keyBytes) throw refused(`${this.keyFile} is not a key the console made (it must be ${keyBytes} bytes).`);
      return key;
    } finally {
      closeSync(fd);
    }
  }
}

/** AES-256-GCM: a fresh IV, the tag, then the ciphertext. */
function sealWithKey(key: Buffer, plain: string): Buffer {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

function openWithKey(key: Buffer, sealed: Buffer, mismatch: string): string {
  if (sealed.length < ivBytes + tagBytes) throw unreadable('The stored secret is damaged.');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivBytes));
  decipher.setAuthTag(sealed.subarray(ivBytes, ivBytes + tagBytes));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    throw unreadable(mismatch);
  }
}

/** The file in the data directory where the desktop app keeps the service's key, sealed with safeStorage. */
export const appKeyFileName = 'connection-secrets.app-key';
export const secretKeyBytes = keyBytes;

/**
 * The console service's vault once the desktop app is attached: AES-256-GCM with a key that the app
 * keeps sealed by Electron's safeStorage (the OS keychain) in `connection-secrets.app-key`, and hands to
 * the service over its 0600 socket (shell/secrets-key.ts). The service holds it in memory only; a
 * service started with no app attached has no key, and says so (locked) where such a secret is needed.
 */
export class HandedKeyVault implements SecretVault {
  readonly kind = 'app-key-aes-256-gcm' as const;
  private key: Buffer | null = null;
  /** False when the app's safeStorage has no keyring (Linux `basic_text`): then its seal of the key is a fixed, public password. */
  private keyring = true;

  constructor(private readonly dataDir: string) {}

  get protects(): boolean {
    return this.keyring;
  }

  get warning(): string | undefined {
    return this.keyring
      ? undefined
      : 'No keyring was found (safeStorage backend basic_text): the desktop app seals the secrets key with a fixed, publicly known password, so anyone who can read the data directory can read your secrets. Install and unlock a keyring (GNOME Keyring or KWallet) and restart the console, or keep the data directory private.';
  }

  get description(): string {
    const file = path.join(this.dataDir, appKeyFileName);
    return this.keyring
      ? `Secrets are encrypted with AES-256-GCM under a key the desktop app keeps in the OS keychain (sealed with Electron safeStorage in ${file}); the console service holds it in memory only, once the desktop app has handed it over.`
      : `Secrets are encrypted with AES-256-GCM under a key the desktop app keeps in ${file}, sealed by Electron safeStorage without a keyring: anyone who can read the data directory can read them.`;
  }

  get unlocked(): boolean {
    return this.key !== null;
  }

  hand(key: Buffer, kept: { keyring: boolean } = { keyring: true }): void {
    if (key.length !== keyBytes) throw new OperatorError({ code: 'invalid_request', message: `The secrets key must be ${keyBytes} bytes.` });
    this.key = Buffer.from(key);
    this.keyring = kept.keyring;
  }

  encrypt(plain: string): Buffer {
    if (!this.key) throw lockedSecret();
    return sealWithKey(this.key, plain);
  }

  decrypt(sealed: Buffer): string {
    if (!this.key) throw lockedSecret();
    return openWithKey(this.key, sealed, `The stored secret does not match the desktop app's key in ${path.join(this.dataDir, appKeyFileName)} (was that file replaced?).`);
  }
}

/**
 * A secret the desktop app keeps locked in the OS keychain, met by a console service that no desktop
 * app has unlocked (started by `npm run serve`, or restarted since the app was last open).
 */
export function lockedSecretAdvice(enterAgain: string): string {
  return `It was saved by the desktop app, which keeps it locked in the OS keychain: open the Operator Console desktop app on this data directory (it unlocks the key for the console service), or ${enterAgain}.`;
}

/** The reason of the refusal a locked secret is opened with: a layer variable's says so in its own words. */
export const lockedSecretReason = 'secret_locked';

function lockedSecret(): OperatorError {
  return new OperatorError({
    code: 'configuration_incomplete',
    reason: lockedSecretReason,
    message: `The stored secret cannot be read now. ${lockedSecretAdvice('enter it again')}`,
    actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
  });
}

function unreadable(message: string): OperatorError {
  return new OperatorError({
    code: 'configuration_incomplete',
    reason: 'ai_connection_unreadable',
    message: `${message} Enter the connection's key again in Settings → AI connections.`,
    actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
  });
}

function refused(message: string): OperatorError {
  return new OperatorError({ code: 'configuration_incomplete', reason: 'secret_store_refused', message, actionUrl: actionRoute({ kind: 'settings-ai-connections' }) });
}

/** A secret the console holds is never written to its log, by anyone (platform/log-redaction.ts). */
function remembered(plain: string): string {
  logRedaction.remember(plain);
  return plain;
}

/**
 * Seals secrets with the console's vault and opens them with whichever vault sealed them: a data
 * directory used by the browser host and then by the desktop app keeps working for secrets sealed
 * with the key file (the desktop app can read that too). Once the desktop app has handed the console
 * service its key (HandedKeyVault), new secrets are sealed with it, and secrets it sealed open; until
 * then they are locked, and say what to do.
 */
export class SecretKeeper {
  readonly handed: HandedKeyVault;

  constructor(
    private readonly primary: SecretVault,
    private readonly keyFileVault: () => KeyFileVault,
    /** The data directory, where the desktop app keeps its sealed key (named in descriptions and messages). */
    dataDir = '<data directory>',
  ) {
    this.handed = new HandedKeyVault(dataDir);
  }

  /** The vault new secrets are sealed with: the desktop app's key once handed, else the console's own. */
  get vault(): SecretVault {
    return this.handed.unlocked ? this.handed : this.primary;
  }

  seal(plain: string): string {
    logRedaction.remember(plain);
    const vault = this.vault;
    return `${vault.kind}:${vault.encrypt(plain).toString('base64')}`;
  }

  open(sealed: string): string {
    const at = sealed.indexOf(':');
    const kind = sealed.slice(0, at);
    const ciphertext = Buffer.from(sealed.slice(at + 1), 'base64');
    if (kind === this.primary.kind) return remembered(this.primary.decrypt(ciphertext));
    if (kind === 'aes-256-gcm-key-file') return remembered(this.keyFileVault().decrypt(ciphertext));
    if (kind === 'app-key-aes-256-gcm') return remembered(this.handed.decrypt(ciphertext));
    if (kind === 'electron-safe-storage') throw lockedSecret();
    throw unreadable('The stored secret is in a form this console does not know.');
  }

  /** Whether a secret of this kind can be opened now (admission refuses a run whose key is locked, up front). */
  canOpen(kind: VaultKind): boolean {
    if (kind === this.primary.kind || kind === 'aes-256-gcm-key-file') return true;
    return kind === 'app-key-aes-256-gcm' && this.handed.unlocked;
  }

  info(): VaultInfo {
    const vault = this.vault;
    const info: VaultInfo = { kind: vault.kind, protects: vault.protects, description: vault.description };
    if (vault.warning) info.warning = vault.warning;
    return info;
  }
}
