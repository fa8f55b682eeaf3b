import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { Budget } from '../../../shared/usage';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { Loading, QueryError } from '../../ui/query-error';
import { useAgents, useConnections } from '../agents/use-agents';
import { BudgetDialog } from './budget-dialog';
import { budgetKind, budgetTarget } from './budget-labels';
import type { BudgetFilter } from './budget-links';
import { BudgetRow } from './budget-row';
import { useBudgets, useDeleteBudget } from './use-budgets';
import './budgets.css';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; budgetId: string } | { kind: 'delete'; budgetId: string } | null;

/**
 * Settings → Budgets: every budget with what its period has used and when it resets; New budget,
 * Edit, Delete, and each budget's limit in place. `budgetId` (from `/settings/budgets/<id>`, the link
 * of a "Budget reached" notice) brings that budget into view with its limit focused. `filter` (from
 * an agent's page or the AI connections list) shows one target's budgets.
 */
export function BudgetsSection({ budgetId, filter }: { budgetId?: string | undefined; filter?: BudgetFilter | null }) {
  const budgets = useBudgets();
  const agents = useAgents();
  const connections = useConnections();
  const [, navigate] = useLocation();
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [done, setDone] = useState<string | null>(null);
  const all = budgets.data ?? [];
  const list = filter ? all.filter((budget) => budget.scope === filter.scope && budget.targetId === filter.targetId) : all;
  const target = dialog && dialog.kind !== 'create' ? all.find((budget) => budget.id === dialog.budgetId) : undefined;
  const routed = budgetId ? all.find((budget) => budget.id === budgetId) : undefined;
  const filterName =
    filter &&
    (filter.scope === 'agent'
      ? agents.data?.find((agent) => agent.id === filter.targetId)?.name
      : connections.data?.find((connection) => connection.id === filter.targetId)?.name);
  const open = (next: OpenDialog) => {
    setDone(null);
    setDialog(next);
  };

  let body;
  if (budgets.isPending) body = <Loading what="budgets" />;
  else if (budgets.isError) body = <QueryError what="budgets" error={budgets.error} onRetry={() => void budgets.refetch()} />;
  else if (list.length === 0) {
    body = (
      <EmptyState title={filter ? 'No budget for this one yet' : 'No budgets yet'}>
        <p>
          A budget caps what an agent, or an AI connection, may use per day or per month, in tokens or in estimated money. Once it
          is used up, new runs are refused before they start, with a notice that links back here.
        </p>
      </EmptyState>
    );
  } else {
    body = (
      <ul className="item-list budget-list" aria-label="Budgets">
        {list.map((budget) => (
          <BudgetRow
            key={budget.id}
            budget={budget}
            selected={budget.id === budgetId}
            onEdit={() => open({ kind: 'edit', budgetId: budget.id })}
            onDelete={() => open({ kind: 'delete', budgetId: budget.id })}
          />
        ))}
      </ul>
    );
  }

  return (
    <section className="settings-section" aria-labelledby="settings-budgets-heading">
      <div className="section-header">
        <h2 id="settings-budgets-heading" className="section-title">
          Budgets
        </h2>
        <button type="button" className="button button--primary" onClick={() => open({ kind: 'create' })}>
          New budget
        </button>
      </div>
      <p className="section-intro">
        A limit on what an agent or an AI connection may use per day or per month, your time: tokens, or money estimated from
        the price table. Admission checks it before a run starts, as it checks an AI connection; a run that uses it up finishes
        its attempt and is not retried. Money is always an estimate.
      </p>
      {filter ? (
        <p className="budget-filter" role="note">
          Showing the budgets of {filter.scope === 'agent' ? 'the agent' : 'the AI connection'} <strong>{filterName ?? filter.targetId}</strong>.{' '}
          <Link href={actionPath({ kind: 'settings-budgets' })}>Show every budget</Link>
        </p>
      ) : null}
      {budgetId && !budgets.isPending && !routed ? (
        <p className="callout callout--warning" role="note">
          That budget is no longer in the console: it was deleted. The list below has every one there is.
        </p>
      ) : null}
      <p className="form-success" aria-live="polite">
        {done}
      </p>
      {body}
      {dialog?.kind === 'create' ? (
        <BudgetDialog
          preset={filter ?? null}
          agents={agents.data ?? []}
          connections={connections.data ?? []}
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            setDone(`Created the ${describe(saved)}.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'edit' && target ? (
        <BudgetDialog
          budget={target}
          agents={agents.data ?? []}
          connections={connections.data ?? []}
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            setDone(`Saved the ${describe(saved)}.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' && target ? (
        <DeleteBudgetDialog
          budget={target}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            setDialog(null);
            setDone(`Deleted the ${describe(target)}.`);
            if (budgetId === target.id) navigate(actionPath({ kind: 'settings-budgets' }), { replace: true });
          }}
        />
      ) : null}
    </section>
  );
}

function describe(budget: Budget): string {
  return `${budgetKind(budget).toLowerCase()} for ${budgetTarget(budget)}`;
}

function DeleteBudgetDialog({ budget, onClose, onDeleted }: { budget: Budget; onClose: () => void; onDeleted: () => void }) {
  const deleteBudget = useDeleteBudget();
  return (
    <ConfirmDialog
      title="Delete budget"
      description={
        <p>
          Delete the {describe(budget)}? Its runs are no longer held to it; what they used stays on the Usage page.
          {budget.exhausted ? ' Runs it refused can be run again from their notice.' : ''}
        </p>
      }
      confirmLabel="Delete"
      error={deleteBudget.error}
      errorPrefix="Could not delete the budget."
      onConfirm={() => deleteBudget.mutateAsync(budget.id).then(onDeleted)}
      onClose={onClose}
    />
  );
}
