import { safeStorage as electronSafeStorage } from 'electron';
import type { SecretVault } from '../connections/secret-vault';

/** The part of Electron's safeStorage the vault uses (a stand-in replaces it in tests). */
export type SafeStorageApi = Pick<Electron.SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString' | 'getSelectedStorageBackend'>;

/**
 * The desktop app's secret vault: Electron's safeStorage, backed by the OS keychain (Keychain on
 * macOS, DPAPI on Windows, libsecret or KWallet on Linux). On Linux without a keyring, Electron falls
 * back to `basic_text`, which encrypts with a fixed, public password: that protects nothing, and the
 * AI connections pane must say so. The synchronous calls are used because sealing a secret is part of
 * one ledger write.
 *
 * Returns null when safeStorage cannot encrypt at all (before `ready`, or no keychain on macOS): the
 * core then uses its key-file vault, which does protect the secrets.
 */
export function createSafeStorageVault(
  safeStorage: SafeStorageApi = electronSafeStorage,
  platform: NodeJS.Platform = process.platform,
): SecretVault | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  const backend = platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null;
  const plainText = backend === 'basic_text';
  const where =
    platform === 'darwin' ? 'the macOS Keychain' : platform === 'win32' ? 'Windows DPAPI (your user account)' : backend && !plainText ? `your keyring (${backend})` : 'no keyring';
  return {
    kind: 'electron-safe-storage',
    protects: !plainText,
    warning: plainText
      ? 'No keyring was found (safeStorage backend basic_text): secrets are stored with a fixed, publicly known password, which protects nothing. Install and unlock a keyring (GNOME Keyring or KWallet) and restart the console, or keep the data directory private.'
      : undefined,
    description: plainText
      ? 'Secrets are kept with Electron safeStorage, but without a keyring: anyone who can read the data directory can read them.'
      : `Secrets are encrypted with Electron safeStorage, using ${where}. Only your user account can decrypt them.`,
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (ciphertext) => safeStorage.decryptString(ciphertext),
  };
}
