import { randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { appKeyFileName, secretKeyBytes } from '../connections/secret-vault';
import type { Logger } from '../platform/log';
import type { ServiceConnection } from '../service/service-client';

/**
 * Desktop secrets in the console service. Electron's safeStorage (the OS keychain) lives only in the
 * desktop app's process, so the app keeps the service's secrets key sealed by it, in
 * `<data dir>/connection-secrets.app-key` (0600), and on attach opens it and hands it to the service over
 * its socket (0600, in a 0700 folder); the service holds it in memory only (HandedKeyVault). Secrets the
 * app sealed with safeStorage directly, before the service existed, are opened here and given back to be
 * sealed with that key: no operator enters a key again. A service with no app attached cannot open
 * them, and refuses a run that needs one up front, saying to open the desktop app.
 *
 * Neither the key nor a secret reaches a log, the ledger (in the clear), the page or any output.
 */

/** The part of Electron's safeStorage this uses (tests give a stand-in sealer). */
export interface SecretsSealer {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
  /** Linux only: which store seals; `basic_text` is a fixed, public password (no keyring). */
  getSelectedStorageBackend?(): string;
}

export async function handSecretsKeyToService(options: {
  connection: Pick<ServiceConnection, 'unlockSecrets' | 'resealLegacySecrets'>;
  dataDir: string;
  sealer: SecretsSealer;
  log: Logger;
}): Promise<{ handed: boolean; resealed: number; unreadable: number }> {
  const { sealer, log } = options;
  // No keychain (macOS before ready, a Linux without one): the service keeps sealing with its key file.
  if (!sealer.isEncryptionAvailable()) {
    log.warn('secrets key not handed to the console service: safeStorage cannot encrypt here', { advice: 'Secrets stay sealed with the key file in the data directory.' });
    return { handed: false, resealed: 0, unreadable: 0 };
  }
  const key = readOrMakeKey(path.join(options.dataDir, appKeyFileName), sealer);
  // Without a keyring the key's seal protects nothing: the service's settings must say so, not "the OS keychain".
  const noKeyring = process.platform === 'linux' && sealer.getSelectedStorageBackend?.() === 'basic_text';
  const { legacy } = await options.connection.unlockSecrets(key, { noKeyring });
  key.fill(0);
  const opened: Array<{ ref: string; plain: string }> = [];
  let unreadable = 0;
  for (const item of legacy) {
    try {
      opened.push({ ref: item.ref, plain: sealer.decryptString(Buffer.from(item.ciphertext, 'base64')) });
    } catch {
      // Sealed by another user's or machine's keychain: it stays as it is, and says so where it is used.
      unreadable += 1;
    }
  }
  const { resealed } = opened.length > 0 ? await options.connection.resealLegacySecrets(opened) : { resealed: 0 };
  log.info('secrets key handed to the console service', { resealed, unreadable });
  return { handed: true, resealed, unreadable };
}

/** The key, opened; made and sealed on first use (O_EXCL: never over another app's key). */
function readOrMakeKey(file: string, sealer: SecretsSealer): Buffer {
  let exists = true;
  try {
    lstatSync(file);
  } catch {
    exists = false;
  }
  if (!exists) {
    const key = randomBytes(secretKeyBytes);
    try {
      const fd = openSync(file, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, sealer.encryptString(key.toString('base64')));
      } finally {
        closeSync(fd);
      }
      return key;
    } catch (error) {
      // Another app made it a moment ago: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (!lstatSync(file).isFile()) throw new Error(`${file} is not a plain file (a link or a folder); remove it and start the console again.`);
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    if (typeof process.getuid === 'function' && fstatSync(fd).uid !== process.getuid()) throw new Error(`${file} belongs to another user; the console uses only a key of your own.`);
    const key = Buffer.from(sealer.decryptString(readFileSync(fd)), 'base64');
    if (key.length !== secretKeyBytes) throw new Error(`${file} does not hold a key the console made.`);
    return key;
  } finally {
    closeSync(fd);
  }
}
