import type { BudgetScope } from '../../../shared/usage';

/**
 * Settings → Budgets narrowed to one agent's or one connection's (`/settings/budgets?agent=<id>`):
 * where an agent's page and the AI connections list link to. New budget there starts on that target.
 */
export interface BudgetFilter {
  scope: BudgetScope;
  targetId: string;
}

export function budgetsOfPath(scope: BudgetScope, targetId: string): string {
  return `/settings/budgets?${scope}=${encodeURIComponent(targetId)}`;
}

/** The filter a search string names (`?agent=…` or `?connection=…`), or null for every budget. */
export function budgetFilterFromSearch(search: string): BudgetFilter | null {
  const params = new URLSearchParams(search);
  const agent = params.get('agent');
  if (agent) return { scope: 'agent', targetId: agent };
  const connection = params.get('connection');
  if (connection) return { scope: 'connection', targetId: connection };
  return null;
}
