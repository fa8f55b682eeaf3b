import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { KeyFileVault, SecretKeeper, keyFileName } from './secret-vault';

const temps: Array<{ remove(): void }> = [];
function dataDir(): string {
  const dir = makeTempDir('oc-vault-');
  temps.push(dir);
  return dir.path;
}
afterEach(() => temps.splice(0).forEach((dir) => dir.remove()));

const secret = 'sk-test-0123456789abcdefghijklmnop';

describe('the key-file vault (browser host)', () => {
  it('makes a 32-byte key file readable by the operator only, on first use, and seals with AES-256-GCM', () => {
    const dir = dataDir();
    const vault = new KeyFileVault(dir);
    const keyFile = path.join(dir, keyFileName);
    expect(() => statSync(keyFile)).toThrow(); // nothing until a secret is sealed
    const keeper = new SecretKeeper(vault, () => vault);
    const sealed = keeper.seal(secret);

    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile)).toHaveLength(32);
    expect(sealed.startsWith('aes-256-gcm-key-file:')).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(Buffer.from(sealed.split(':')[1]!, 'base64').toString('latin1')).not.toContain(secret);
    // A fresh IV each time: the same secret never seals to the same bytes.
    expect(keeper.seal(secret)).not.toBe(sealed);
    expect(keeper.open(sealed)).toBe(secret);
    // Another console on the same data directory reads it with the same key file.
    expect(new SecretKeeper(new KeyFileVault(dir), () => new KeyFileVault(dir)).open(sealed)).toBe(secret);
    expect(keeper.info()).toMatchObject({ kind: 'aes-256-gcm-key-file', protects: true, description: expect.stringContaining(keyFile) });
    expect(keeper.info().warning).toBeUndefined();
  });

  it('narrows a key file other users could read to 0600, and says so', () => {
    const dir = dataDir();
    const keeper = new SecretKeeper(new KeyFileVault(dir), () => new KeyFileVault(dir));
    const sealed = keeper.seal(secret);
    const keyFile = path.join(dir, keyFileName);
    chmodSync(keyFile, 0o644);

    const reopened = new KeyFileVault(dir);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(reopened.warning).toMatch(/could be read by other users \(mode 0644\).*0600/);
    expect(new SecretKeeper(reopened, () => reopened).info().warning).toBe(reopened.warning);
    expect(reopened.decrypt(Buffer.from(sealed.split(':')[1]!, 'base64'))).toBe(secret);
  });

  it('refuses a key file that is a link or not a key it made', () => {
    const linked = dataDir();
    writeFileSync(path.join(linked, 'elsewhere'), Buffer.alloc(32, 1), { mode: 0o600 });
    symlinkSync(path.join(linked, 'elsewhere'), path.join(linked, keyFileName));
    // The console still starts; the pane says why, and sealing a secret is refused with that reason.
    const refused = new KeyFileVault(linked);
    expect(refused.warning).toMatch(/not a plain file/);
    expect(() => refused.encrypt(secret)).toThrow(/not a plain file/);

    const short = dataDir();
    writeFileSync(path.join(short, keyFileName), 'not a key', { mode: 0o600 });
    expect(() => new KeyFileVault(short).encrypt(secret)).toThrow(/32 bytes/);
  });

  it('says what to do when a secret cannot be opened (key file gone, or sealed by the desktop app)', () => {
    const dir = dataDir();
    const keeper = new SecretKeeper(new KeyFileVault(dir), () => new KeyFileVault(dir));
    const sealed = keeper.seal(secret);
    const other = dataDir();
    const elsewhere = new SecretKeeper(new KeyFileVault(other), () => new KeyFileVault(other));
    expect(() => elsewhere.open(sealed)).toThrow(expect.objectContaining({ code: 'configuration_incomplete', reason: 'ai_connection_unreadable' }));
    expect(() => keeper.open(`electron-safe-storage:${Buffer.from('x').toString('base64')}`)).toThrow(/desktop app/);
  });
});
