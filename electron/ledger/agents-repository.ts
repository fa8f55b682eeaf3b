import type { Agent } from '../../shared/entities';
import type { LedgerDb } from './database-handle';
import { isoNow } from './ids';

/** An agent as stored; the profile revision is derived from the catalog by the agent service. */
export type StoredAgent = Omit<Agent, 'profileRevision'>;

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
  executable_path: string | null;
  command_args_json: string | null;
  created_at: number;
}

function toAgent(row: AgentRow): StoredAgent {
  return {
    id: row.id,
    name: row.name,
    providerId: row.provider_id,
    model: row.model,
    profileId: row.profile_id,
    capacity: row.capacity,
    homeMode: row.home_mode,
    environmentId: row.environment_id,
    connectionId: row.connection_id,
    executablePath: row.executable_path,
    commandArgs: row.command_args_json === null ? null : (JSON.parse(row.command_args_json) as string[]),
    createdAt: isoNow(row.created_at),
  };
}

export type AgentWrite = Omit<StoredAgent, 'id' | 'createdAt' | 'connectionId'>;

export class AgentsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): StoredAgent[] {
    return (this.db.prepare('SELECT * FROM agents WHERE deleted_at IS NULL ORDER BY name COLLATE NOCASE').all() as AgentRow[]).map(toAgent);
  }

  /** Deleted agents too: a run's history still names the agent that made it. */
  get(id: string): (StoredAgent & { deleted: boolean }) | undefined {
    const row = this.db.prepare('SELECT * FROM agents WHERE id = ?').get(id) as (AgentRow & { deleted_at: number | null }) | undefined;
    return row && { ...toAgent(row), deleted: row.deleted_at !== null };
  }

  findByName(name: string): StoredAgent | undefined {
    const row = this.db.prepare('SELECT * FROM agents WHERE name = ? COLLATE NOCASE AND deleted_at IS NULL').get(name) as AgentRow | undefined;
    return row && toAgent(row);
  }

  insert(id: string, agent: AgentWrite, at: number): void {
    this.db
      .prepare(
        `INSERT INTO agents (id, name, provider_id, model, profile_id, capacity, home_mode, environment_id,
           executable_path, command_args_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, ...agentValues(agent), at, at);
  }

  update(id: string, agent: AgentWrite, at: number): void {
    this.db
      .prepare(
        `UPDATE agents SET name = ?, provider_id = ?, model = ?, profile_id = ?, capacity = ?, home_mode = ?,
           environment_id = ?, executable_path = ?, command_args_json = ?, updated_at = ? WHERE id = ?`,
      )
      .run(...agentValues(agent), at, id);
  }

  /** Binds the agent to an AI connection (or unbinds it with null). */
  setConnection(id: string, connectionId: string | null, at: number): void {
    this.db.prepare('UPDATE agents SET connection_id = ?, updated_at = ? WHERE id = ?').run(connectionId, at, id);
  }

  /** Live agents bound to a connection. */
  boundTo(connectionId: string): StoredAgent[] {
    return (this.db.prepare('SELECT * FROM agents WHERE connection_id = ? AND deleted_at IS NULL ORDER BY name COLLATE NOCASE').all(connectionId) as AgentRow[]).map(toAgent);
  }

  /** The agent's recorded verification (JSON owned by the agent verification code), or null. */
  verificationJson(id: string): string | null {
    const row = this.db.prepare('SELECT verification_json FROM agents WHERE id = ?').get(id) as { verification_json: string | null } | undefined;
    return row?.verification_json ?? null;
  }

  saveVerification(id: string, json: string): void {
    this.db.prepare('UPDATE agents SET verification_json = ? WHERE id = ?').run(json, id);
  }

  /** Marks the agent deleted and frees its name; its runs keep pointing at it. */
  markDeleted(id: string, at: number): boolean {
    return (
      this.db
        .prepare("UPDATE agents SET deleted_at = ?, name = name || ' (deleted ' || id || ')', updated_at = ? WHERE id = ? AND deleted_at IS NULL")
        .run(at, at, id).changes === 1
    );
  }

  /** Live agents put in an environment (deleting it is refused while there are any). */
  inEnvironment(environmentId: string): StoredAgent[] {
    return (this.db.prepare('SELECT * FROM agents WHERE environment_id = ? AND deleted_at IS NULL ORDER BY name COLLATE NOCASE').all(environmentId) as AgentRow[]).map(toAgent);
  }
}

function agentValues(agent: AgentWrite) {
  return [
    agent.name,
    agent.providerId,
    agent.model,
    agent.profileId,
    agent.capacity,
    agent.homeMode,
    agent.environmentId,
    agent.executablePath,
    agent.commandArgs === null ? null : JSON.stringify(agent.commandArgs),
  ] as const;
}
