import type { Environment } from '../../shared/entities';
import type { LedgerDb } from './database-handle';

interface EnvironmentRow {
  id: string;
  name: string;
  kind: Environment['kind'];
  network_mode: Environment['networkMode'];
  requires_connection: number;
  allowed_hosts_json: string;
  built_in: number;
  deleted_at: number | null;
  host_id: string | null;
}

/** An environment as stored, deleted ones too (runs they confined still name them). */
export type StoredEnvironment = Environment & { deleted: boolean };

/** What a create or an edit writes. */
export type EnvironmentWrite = Pick<Environment, 'name' | 'kind' | 'networkMode' | 'requiresConnection' | 'allowedHosts' | 'hostId'>;

function toEnvironment(row: EnvironmentRow): StoredEnvironment {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    networkMode: row.network_mode,
    requiresConnection: row.requires_connection === 1,
    allowedHosts: JSON.parse(row.allowed_hosts_json) as string[],
    builtIn: row.built_in === 1,
    hostId: row.host_id,
    deleted: row.deleted_at !== null,
  };
}

/** Where and how runs execute: the built-in Local and Sandboxed, and the operator's own. */
export class EnvironmentsRepository {
  constructor(private readonly db: LedgerDb) {}

  /** The environments an agent can be put in: built-ins first, then by name. */
  list(): StoredEnvironment[] {
    return (this.db.prepare('SELECT * FROM environments WHERE deleted_at IS NULL ORDER BY built_in DESC, kind, name COLLATE NOCASE').all() as EnvironmentRow[]).map(
      toEnvironment,
    );
  }

  /** Deleted ones too: a run's history names the environment that confined it. */
  get(id: string): StoredEnvironment | undefined {
    const row = this.db.prepare('SELECT * FROM environments WHERE id = ?').get(id) as EnvironmentRow | undefined;
    return row && toEnvironment(row);
  }

  findByName(name: string): StoredEnvironment | undefined {
    const row = this.db.prepare('SELECT * FROM environments WHERE name = ? COLLATE NOCASE AND deleted_at IS NULL').get(name) as EnvironmentRow | undefined;
    return row && toEnvironment(row);
  }

  insert(id: string, environment: EnvironmentWrite, at: number): void {
    this.db
      .prepare(
        `INSERT INTO environments (id, name, kind, network_mode, requires_connection, allowed_hosts_json, host_id, built_in, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(id, ...values(environment), at, at);
  }

  update(id: string, environment: EnvironmentWrite, at: number): void {
    this.db
      .prepare('UPDATE environments SET name = ?, kind = ?, network_mode = ?, requires_connection = ?, allowed_hosts_json = ?, host_id = ?, updated_at = ? WHERE id = ?')
      .run(...values(environment), at, id);
  }

  /** Marks an operator's environment deleted and frees its name; built-ins are never deleted. */
  markDeleted(id: string, at: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE environments SET deleted_at = ?, name = name || ' (deleted ' || id || ')', updated_at = ? WHERE id = ? AND deleted_at IS NULL AND built_in = 0",
        )
        .run(at, at, id).changes === 1
    );
  }
}

function values(environment: EnvironmentWrite) {
  return [
    environment.name,
    environment.kind,
    environment.networkMode,
    environment.requiresConnection ? 1 : 0,
    JSON.stringify(environment.allowedHosts),
    environment.hostId,
  ] as const;
}
