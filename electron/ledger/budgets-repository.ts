import type { BudgetMeasure, BudgetPeriod, BudgetScope } from '../../shared/usage';
import type { LedgerDb } from './database-handle';

/** A budget as the ledger holds it (`budgets`, migration 11). What it has spent is computed, never stored. */
export interface StoredBudget {
  id: string;
  scope: BudgetScope;
  targetId: string;
  targetName: string;
  measure: BudgetMeasure;
  period: BudgetPeriod;
  limit: number;
  createdAt: number;
  updatedAt: number;
}

interface BudgetRow {
  id: string;
  scope: BudgetScope;
  target_id: string;
  target_name: string;
  measure: BudgetMeasure;
  period: BudgetPeriod;
  limit_value: number;
  created_at: number;
  updated_at: number;
}

function fromRow(row: BudgetRow): StoredBudget {
  return {
    id: row.id,
    scope: row.scope,
    targetId: row.target_id,
    targetName: row.target_name,
    measure: row.measure,
    period: row.period,
    limit: row.limit_value,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class BudgetsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): StoredBudget[] {
    return (this.db.prepare('SELECT * FROM budgets ORDER BY scope, target_name, period, measure').all() as BudgetRow[]).map(fromRow);
  }

  get(id: string): StoredBudget | undefined {
    const row = this.db.prepare('SELECT * FROM budgets WHERE id = ?').get(id) as BudgetRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** The budgets on an agent or a connection. */
  of(scope: BudgetScope, targetId: string): StoredBudget[] {
    return (this.db.prepare('SELECT * FROM budgets WHERE scope = ? AND target_id = ? ORDER BY period, measure').all(scope, targetId) as BudgetRow[]).map(fromRow);
  }

  /** The budget with this scope, target, measure and period, if there is one (there is at most one). */
  find(budget: Pick<StoredBudget, 'scope' | 'targetId' | 'measure' | 'period'>): StoredBudget | undefined {
    const row = this.db
      .prepare('SELECT * FROM budgets WHERE scope = ? AND target_id = ? AND measure = ? AND period = ?')
      .get(budget.scope, budget.targetId, budget.measure, budget.period) as BudgetRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  insert(budget: StoredBudget): void {
    this.db
      .prepare(
        `INSERT INTO budgets (id, scope, target_id, target_name, measure, period, limit_value, created_at, updated_at)
         VALUES (@id, @scope, @targetId, @targetName, @measure, @period, @limit, @createdAt, @updatedAt)`,
      )
      .run(budget);
  }

  update(budget: StoredBudget): void {
    this.db
      .prepare(
        `UPDATE budgets SET scope = @scope, target_id = @targetId, target_name = @targetName, measure = @measure, period = @period,
           limit_value = @limit, updated_at = @updatedAt WHERE id = @id`,
      )
      .run(budget);
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM budgets WHERE id = ?').run(id).changes > 0;
  }
}
