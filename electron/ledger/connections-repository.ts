import type { AiConnection, ConnectionTestResult, VaultKind } from '../../shared/entities';
import { vaultKinds } from '../../shared/entities';
import type { LedgerDb } from './database-handle';
import { isoNow } from './ids';

interface ConnectionRow {
  id: string;
  name: string;
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  base_url: string | null;
  ownership: AiConnection['ownership'];
  agent_scope: AiConnection['agentScope'];
  status: AiConnection['status'];
  secret_hint: string | null;
  /** The sealed secret's kind (the prefix of secret_ref); the sealed secret itself is never selected here. */
  secret_kind: string | null;
  last_test_json: string | null;
  created_at: number;
  updated_at: number;
}

/** A connection as stored, without the in-memory `updating` flag the connection service adds. */
export type StoredConnection = Omit<AiConnection, 'updating'>;

export interface ConnectionWrite {
  name: string;
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string | null;
  ownership: AiConnection['ownership'];
  agentScope: AiConnection['agentScope'];
  status: AiConnection['status'];
}

// Metadata only. secret_ref holds the sealed (encrypted) secret; only `sealedSecret` reads it.
const metadataSelect = `
  SELECT id, name, provider, method, base_url, ownership, agent_scope, status, secret_hint,
         CASE WHEN secret_ref IS NULL THEN NULL ELSE substr(secret_ref, 1, instr(secret_ref, ':') - 1) END AS secret_kind,
         last_test_json, created_at, updated_at
  FROM ai_connections`;

export class ConnectionsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): StoredConnection[] {
    const rows = this.db.prepare(`${metadataSelect} ORDER BY name COLLATE NOCASE, id`).all() as ConnectionRow[];
    return rows.map((row) => this.toConnection(row));
  }

  get(id: string): StoredConnection | undefined {
    const row = this.db.prepare(`${metadataSelect} WHERE id = ?`).get(id) as ConnectionRow | undefined;
    return row && this.toConnection(row);
  }

  findByName(name: string): StoredConnection | undefined {
    const row = this.db.prepare(`${metadataSelect} WHERE name = ? COLLATE NOCASE`).get(name) as ConnectionRow | undefined;
    return row && this.toConnection(row);
  }

  /**
   * The sealed secret (ciphertext with its vault kind), for the connection service to open at launch
   * or for a Test. Never plaintext: the ledger does not hold a secret in clear.
   */
  sealedSecret(id: string): string | null {
    const row = this.db.prepare('SELECT secret_ref FROM ai_connections WHERE id = ?').get(id) as { secret_ref: string | null } | undefined;
    return row?.secret_ref ?? null;
  }

  insert(id: string, connection: ConnectionWrite, secret: { sealed: string; hint: string }, agentIds: readonly string[], at: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO ai_connections (id, name, provider, method, base_url, ownership, agent_scope, status, secret_hint,
             secret_ref, last_test_json, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        )
        .run(id, ...connectionValues(connection), secret.hint, secret.sealed, at, at);
      this.replaceAgents(id, connection.agentScope === 'chosen' ? agentIds : []);
    })();
  }

  /** Writes the metadata, the agents, and (when given) a new sealed secret, in one transaction. */
  update(id: string, connection: ConnectionWrite, secret: { sealed: string; hint: string } | null, agentIds: readonly string[], at: number, options: { clearLastTest: boolean }): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE ai_connections SET name = ?, provider = ?, method = ?, base_url = ?, ownership = ?, agent_scope = ?, status = ?,
             updated_at = ? WHERE id = ?`,
        )
        .run(...connectionValues(connection), at, id);
      if (secret) this.db.prepare('UPDATE ai_connections SET secret_ref = ?, secret_hint = ? WHERE id = ?').run(secret.sealed, secret.hint, id);
      if (options.clearLastTest) this.db.prepare('UPDATE ai_connections SET last_test_json = NULL WHERE id = ?').run(id);
      this.replaceAgents(id, connection.agentScope === 'chosen' ? agentIds : []);
    })();
  }

  /** Secrets sealed by a vault of this kind (the prefix of secret_ref), by connection. */
  sealedSecretsOfKind(kind: string): Array<{ id: string; sealed: string }> {
    return this.db.prepare("SELECT id, secret_ref AS sealed FROM ai_connections WHERE secret_ref LIKE ? || ':%'").all(kind) as Array<{ id: string; sealed: string }>;
  }

  /**
   * The same secret, sealed again (by another vault), if the connection still holds one of `kind` (one
   * entered again meanwhile is the operator's newer one): true when it did. The hint and the rest stay.
   */
  resealSecret(id: string, kind: string, sealed: string): boolean {
    return this.db.prepare("UPDATE ai_connections SET secret_ref = ? WHERE id = ? AND secret_ref LIKE ? || ':%'").run(sealed, id, kind).changes === 1;
  }

  saveTest(id: string, result: ConnectionTestResult, status: AiConnection['status'], at: number): void {
    this.db.prepare('UPDATE ai_connections SET last_test_json = ?, status = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(result), status, at, id);
  }

  /** Deletes it; agents bound to it are unbound by the foreign key (ON DELETE SET NULL). */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM ai_connections WHERE id = ?').run(id).changes === 1;
  }

  agentIds(id: string): string[] {
    return (this.db.prepare('SELECT agent_id FROM ai_connection_agents WHERE connection_id = ? ORDER BY agent_id').all(id) as Array<{ agent_id: string }>).map(
      (row) => row.agent_id,
    );
  }

  private replaceAgents(id: string, agentIds: readonly string[]): void {
    this.db.prepare('DELETE FROM ai_connection_agents WHERE connection_id = ?').run(id);
    const insert = this.db.prepare('INSERT OR IGNORE INTO ai_connection_agents (connection_id, agent_id) VALUES (?, ?)');
    for (const agentId of agentIds) insert.run(id, agentId);
  }

  private toConnection(row: ConnectionRow): StoredConnection {
    const storage = (vaultKinds as readonly string[]).includes(row.secret_kind ?? '') ? (row.secret_kind as VaultKind) : null;
    return {
      id: row.id,
      name: row.name,
      provider: row.provider,
      method: row.method,
      baseUrl: row.base_url,
      ownership: row.ownership,
      agentScope: row.agent_scope,
      agentIds: row.agent_scope === 'chosen' ? this.agentIds(row.id) : [],
      status: row.status,
      secretHint: row.secret_hint,
      storage,
      lastTest: row.last_test_json ? (JSON.parse(row.last_test_json) as ConnectionTestResult) : null,
      createdAt: isoNow(row.created_at),
      updatedAt: isoNow(row.updated_at),
    };
  }
}

function connectionValues(connection: ConnectionWrite) {
  return [
    connection.name,
    connection.provider,
    connection.method,
    connection.baseUrl,
    connection.ownership,
    connection.agentScope,
    connection.status,
  ] as const;
}
