import type { Agent, Environment } from '../../shared/entities';
import type { LedgerDb } from './ledger-db';
import { isoNow } from './ids';

interface AgentRow {
  id: string;
  name: string;
  provider_id: string;
  model: string;
  profile_id: string;
  capacity: number;
  home_mode: Agent['homeMode'];
  environment_id: string;
  connection_id: string | null;
  created_at: number;
}

interface EnvironmentRow {
  id: string;
  name: string;
  kind: Environment['kind'];
  network_mode: Environment['networkMode'];
  requires_connection: number;
}

export class AgentsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): Agent[] {
    return (this.db.prepare('SELECT * FROM agents ORDER BY name COLLATE NOCASE').all() as AgentRow[]).map((row) => ({
      id: row.id,
      name: row.name,
      providerId: row.provider_id,
      model: row.model,
      profileId: row.profile_id,
      capacity: row.capacity,
      homeMode: row.home_mode,
      environmentId: row.environment_id,
      connectionId: row.connection_id,
      createdAt: isoNow(row.created_at),
    }));
  }

  listEnvironments(): Environment[] {
    return (this.db.prepare('SELECT * FROM environments ORDER BY kind, name').all() as EnvironmentRow[]).map((row) => ({
      id: row.id,
      name: row.name,
      kind: row.kind,
      networkMode: row.network_mode,
      requiresConnection: row.requires_connection === 1,
    }));
  }
}
