import type { AiConnection } from '../../shared/entities';
import type { LedgerDb } from './ledger-db';
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
  created_at: number;
}

export class ConnectionsRepository {
  constructor(private readonly db: LedgerDb) {}

  /** Metadata only; the columns that locate the encrypted secret are never selected here. */
  list(): AiConnection[] {
    const rows = this.db
      .prepare(
        `SELECT id, name, provider, method, base_url, ownership, agent_scope, status, secret_hint, created_at
         FROM ai_connections ORDER BY name COLLATE NOCASE`,
      )
      .all() as ConnectionRow[];
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      provider: row.provider,
      method: row.method,
      baseUrl: row.base_url,
      ownership: row.ownership,
      agentScope: row.agent_scope,
      status: row.status,
      secretHint: row.secret_hint,
      createdAt: isoNow(row.created_at),
    }));
  }
}
