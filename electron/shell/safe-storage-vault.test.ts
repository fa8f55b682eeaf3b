import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretKeeper, KeyFileVault } from '../connections/secret-vault';
import { makeTempDir } from '../testing/temp-dir';
import { safeStorageStandIn } from './electron-stand-ins';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

const { createSafeStorageVault } = await import('./safe-storage-vault');

const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123';

afterEach(() => {
  safeStorageStandIn.available = true;
  safeStorageStandIn.backend = 'gnome_libsecret';
});

describe('the safeStorage vault (desktop app)', () => {
  it('seals with safeStorage when a keyring protects it', () => {
    const vault = createSafeStorageVault(undefined, 'linux')!;
    expect(vault).toMatchObject({ kind: 'electron-safe-storage', protects: true, warning: undefined });
    expect(vault.description).toMatch(/gnome_libsecret/);
    const temp = makeTempDir('oc-safe-');
    const keeper = new SecretKeeper(vault, () => new KeyFileVault(temp.path));
    const before = safeStorageStandIn.decrypted;
    const sealed = keeper.seal(secret);
    expect(sealed.startsWith('electron-safe-storage:')).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(keeper.open(sealed)).toBe(secret);
    expect(safeStorageStandIn.decrypted).toBe(before + 1);
    temp.remove();
  });

  it('warns that Linux basic_text protects nothing', () => {
    safeStorageStandIn.backend = 'basic_text';
    const vault = createSafeStorageVault(undefined, 'linux')!;
    expect(vault.protects).toBe(false);
    expect(vault.warning).toMatch(/basic_text.*protects nothing/);
  });

  it('names the OS store on macOS and Windows, and steps aside when encryption is unavailable', () => {
    expect(createSafeStorageVault(undefined, 'darwin')!.description).toMatch(/Keychain/);
    expect(createSafeStorageVault(undefined, 'win32')!.description).toMatch(/DPAPI/);
    safeStorageStandIn.available = false;
    expect(createSafeStorageVault(undefined, 'linux')).toBeNull();
  });

  it('still opens secrets the browser host sealed with the key file on the same data directory', () => {
    const temp = makeTempDir('oc-safe-');
    const keyFile = new KeyFileVault(temp.path);
    const sealedByHost = new SecretKeeper(keyFile, () => keyFile).seal(secret);
    const desktop = new SecretKeeper(createSafeStorageVault(undefined, 'linux')!, () => new KeyFileVault(temp.path));
    expect(desktop.open(sealedByHost)).toBe(secret);
    temp.remove();
  });
});
