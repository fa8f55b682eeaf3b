import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import type { ConnectionService } from './connection-service';
import type { SecretKeeper } from './secret-vault';

/**
 * The console service's side of desktop secrets (shell/secrets-key.ts is the app's). The desktop app
 * hands the service the key it keeps in the OS keychain; from then on every secret the console seals
 * (AI connection keys, secret layer variables) is sealed with it, and those it sealed open. Secrets
 * the app sealed with safeStorage directly, before the service existed, are listed, still sealed, by a
 * reference of their own, for the app to open and give back; they are sealed again with the key. No
 * secret or key is logged, and none is written to the ledger in the clear.
 */

/** The vault kind of secrets the desktop app sealed with safeStorage itself, before the service. */
const legacyKind = 'electron-safe-storage';

export interface LegacySecret {
  /** `connection:<id>` or `variable:<row>`: where the secret is kept. */
  ref: string;
  /** Its ciphertext (base64), as safeStorage made it. */
  ciphertext: string;
}

export class DesktopSecrets {
  constructor(
    private readonly keeper: SecretKeeper,
    private readonly ledger: Pick<Ledger, 'connections' | 'projectSetup'>,
    private readonly connections: Pick<ConnectionService, 'secretsUnlocked'>,
    private readonly log: Logger,
  ) {}

  unlock(key: Buffer, kept: { keyring: boolean } = { keyring: true }): { legacy: LegacySecret[] } {
    this.keeper.handed.hand(key, kept);
    const ciphertext = (sealed: string) => sealed.slice(sealed.indexOf(':') + 1);
    const legacy: LegacySecret[] = [
      ...this.ledger.connections.sealedSecretsOfKind(legacyKind).map((row) => ({ ref: `connection:${row.id}`, ciphertext: ciphertext(row.sealed) })),
      ...this.ledger.projectSetup.sealedValuesOfKind(legacyKind).map((row) => ({ ref: `variable:${row.rowid}`, ciphertext: ciphertext(row.sealed) })),
    ];
    // Connections sealed with the handed key open now: their agents' notices resolve.
    this.connections.secretsUnlocked(this.ledger.connections.sealedSecretsOfKind('app-key-aes-256-gcm').map((row) => row.id));
    this.log.info('secrets key handed to the console service', { legacySecrets: legacy.length });
    return { legacy };
  }

  reseal(secrets: ReadonlyArray<{ ref: string; plain: string }>): { resealed: number } {
    if (!this.keeper.handed.unlocked) return { resealed: 0 };
    let resealed = 0;
    const connections: string[] = [];
    for (const { ref, plain } of secrets) {
      const sealed = this.keeper.seal(plain);
      const [kind, id] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
      if (kind === 'connection' && this.ledger.connections.resealSecret(id, legacyKind, sealed)) {
        connections.push(id);
        resealed += 1;
      } else if (kind === 'variable' && /^\d+$/.test(id) && this.ledger.projectSetup.resealValue(Number(id), legacyKind, sealed)) {
        resealed += 1;
      }
    }
    this.connections.secretsUnlocked(connections);
    this.log.info('desktop app secrets sealed again with the handed key', { resealed });
    return { resealed };
  }
}
