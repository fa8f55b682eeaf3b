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
 * - Desktop app: Electron's `safeStorage` (the OS keychain), in electron/shell/safe-storage-vault.ts.
 * - Browser host (and the desktop app when safeStorage is unavailable): AES-256-GCM with a random
 *   32-byte key in `<dataDir>/connection-secrets.key`, readable by the operator's user only.
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
    const key = this.loadKey({ create: true });
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  decrypt(sealed: Buffer): string {
    const key = this.loadKey({ create: false });
    if (sealed.length < ivBytes + tagBytes) throw unreadable('The stored secret is damaged.');
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivBytes));
    decipher.setAuthTag(sealed.subarray(ivBytes, ivBytes + tagBytes));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
    } catch {
      throw unreadable(`The stored secret does not match the key in ${this.keyFile} (was the key file replaced?).`);
    }
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
 * with the key file (the desktop app can read that too); a secret sealed by the desktop app's
 * safeStorage cannot be opened by the browser host, and says so.
 */
export class SecretKeeper {
  constructor(
    readonly vault: SecretVault,
    private readonly keyFileVault: () => KeyFileVault,
  ) {}

  seal(plain: string): string {
    logRedaction.remember(plain);
    return `${this.vault.kind}:${this.vault.encrypt(plain).toString('base64')}`;
  }

  open(sealed: string): string {
    const at = sealed.indexOf(':');
    const kind = sealed.slice(0, at);
    const ciphertext = Buffer.from(sealed.slice(at + 1), 'base64');
    if (kind === this.vault.kind) return remembered(this.vault.decrypt(ciphertext));
    if (kind === 'aes-256-gcm-key-file') return remembered(this.keyFileVault().decrypt(ciphertext));
    if (kind === 'electron-safe-storage') {
      throw unreadable('This secret was saved by the desktop app in the OS keychain, which the browser host cannot read.');
    }
    throw unreadable('The stored secret is in a form this console does not know.');
  }

  info(): VaultInfo {
    const info: VaultInfo = { kind: this.vault.kind, protects: this.vault.protects, description: this.vault.description };
    if (this.vault.warning) info.warning = this.vault.warning;
    return info;
  }
}
