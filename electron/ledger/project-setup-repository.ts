import type { VariableLayer } from '../../shared/entities';
import type { LedgerDb } from './database-handle';

/** Whose variables: a project's, an agent's or a task's (the layers a run's environment is merged from). */
export interface VariableOwner {
  layer: VariableLayer;
  id: string;
}

/** A layer's variable as stored: a plain value, or a secret sealed by the console's vault (never both). */
export interface StoredVariable {
  name: string;
  value: string | null;
  sealedValue: string | null;
}

export interface StoredProjectSetup {
  copyPatterns: string[];
  setupCommand: string | null;
}

const ownerColumn: Record<VariableLayer, string> = { project: 'project_id', agent: 'agent_id', task: 'task_id' };

/** A project's setup settings (on the projects table) and every layer's variables (layer_variables). */
export class ProjectSetupRepository {
  constructor(private readonly db: LedgerDb) {}

  get(projectId: string): StoredProjectSetup | undefined {
    const row = this.db.prepare('SELECT copy_patterns_json, setup_command FROM projects WHERE id = ?').get(projectId) as
      | { copy_patterns_json: string | null; setup_command: string | null }
      | undefined;
    if (!row) return undefined;
    return { copyPatterns: row.copy_patterns_json ? (JSON.parse(row.copy_patterns_json) as string[]) : [], setupCommand: row.setup_command };
  }

  update(projectId: string, changes: Partial<StoredProjectSetup>): void {
    if (changes.copyPatterns !== undefined) {
      this.db.prepare('UPDATE projects SET copy_patterns_json = ? WHERE id = ?').run(JSON.stringify(changes.copyPatterns), projectId);
    }
    if (changes.setupCommand !== undefined) this.db.prepare('UPDATE projects SET setup_command = ? WHERE id = ?').run(changes.setupCommand, projectId);
  }

  /** The owner's variables, in the order the operator gave them. */
  variables(owner: VariableOwner): StoredVariable[] {
    const rows = this.db
      .prepare(`SELECT name, value, sealed_value FROM layer_variables WHERE ${ownerColumn[owner.layer]} = ? ORDER BY position`)
      .all(owner.id) as Array<{ name: string; value: string | null; sealed_value: string | null }>;
    return rows.map((row) => ({ name: row.name, value: row.value, sealedValue: row.sealed_value }));
  }

  /** Secret values sealed by a vault of this kind (the prefix of sealed_value), by row. */
  sealedValuesOfKind(kind: string): Array<{ rowid: number; sealed: string }> {
    return this.db
      .prepare("SELECT rowid, sealed_value AS sealed FROM layer_variables WHERE sealed_value LIKE ? || ':%'")
      .all(kind) as Array<{ rowid: number; sealed: string }>;
  }

  /** The same secret value, sealed again (by another vault), if the row still holds one of `kind`: true when it did. */
  resealValue(rowid: number, kind: string, sealed: string): boolean {
    return this.db.prepare("UPDATE layer_variables SET sealed_value = ? WHERE rowid = ? AND sealed_value LIKE ? || ':%'").run(sealed, rowid, kind).changes === 1;
  }

  /** Replaces the owner's variables with these, in one transaction. */
  replaceVariables(owner: VariableOwner, variables: readonly StoredVariable[], at: number): void {
    const column = ownerColumn[owner.layer];
    const insert = this.db.prepare(`INSERT INTO layer_variables (${column}, name, value, sealed_value, position, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM layer_variables WHERE ${column} = ?`).run(owner.id);
      variables.forEach((variable, position) => insert.run(owner.id, variable.name, variable.value, variable.sealedValue, position, at));
    })();
  }
}
