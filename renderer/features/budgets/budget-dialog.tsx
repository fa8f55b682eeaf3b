import { useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { AiConnection, Agent } from '../../../shared/entities';
import { budgetUncounted, type Budget } from '../../../shared/usage';
import { Choice } from '../../ui/choice';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import {
  budgetFormFromBudget,
  budgetFormProblems,
  budgetInput,
  emptyBudgetForm,
  firstBudgetProblem,
  type BudgetFormField,
  type BudgetFormProblems,
  type BudgetFormValues,
} from './budget-form';
import type { BudgetFilter } from './budget-links';
import { measureChoices, periodChoices, scopeLabels } from './budget-labels';
import { UncountedNote } from './uncounted-note';
import { useSaveBudget } from './use-budgets';

/**
 * New budget and Edit: what it holds (an agent or an AI connection), what it counts (tokens or
 * estimated money), over which period, and its limit. `preset`: the target a filtered list is for.
 */
export function BudgetDialog({
  budget,
  preset,
  agents,
  connections,
  onClose,
  onSaved,
}: {
  budget?: Budget;
  preset?: BudgetFilter | null;
  agents: Agent[];
  connections: AiConnection[];
  onClose: () => void;
  onSaved: (budget: Budget) => void;
}) {
  const [values, setValues] = useState<BudgetFormValues>(() => (budget ? budgetFormFromBudget(budget) : emptyBudgetForm(preset ?? undefined)));
  const [problems, setProblems] = useState<BudgetFormProblems>({});
  const save = useSaveBudget();
  const submission = useSingleSubmit();
  const formId = useId();
  const targetRef = useRef<HTMLSelectElement>(null);
  const limitRef = useRef<HTMLInputElement>(null);
  const fieldRefs: Record<BudgetFormField, RefObject<HTMLElement | null>> = { targetId: targetRef, limit: limitRef };
  const targets = values.scope === 'agent' ? agents.map((agent) => ({ id: agent.id, name: agent.name })) : connections.map((connection) => ({ id: connection.id, name: connection.name }));
  // A budget whose target is gone keeps it listed, so the form says what it holds.
  if (budget && budget.scope === values.scope && !targets.some((target) => target.id === budget.targetId)) {
    targets.push({ id: budget.targetId, name: `${budget.targetName} (no longer in the console)` });
  }

  const change = (patch: Partial<BudgetFormValues>) => {
    save.reset();
    setValues((current) => ({ ...current, ...patch }));
    setProblems((current) => {
      const next = { ...current };
      for (const field of Object.keys(patch)) delete next[field as BudgetFormField];
      if ('measure' in patch) delete next.limit;
      return next;
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      const found = budgetFormProblems(values);
      setProblems(found);
      const first = firstBudgetProblem(found);
      if (first) {
        fieldRefs[first].current?.focus();
        return;
      }
      return save.mutateAsync(budgetInput(values, budget?.id)).then(onSaved);
    });
  };

  return (
    <ModalDialog
      title={budget ? 'Edit budget' : 'New budget'}
      description={
        <p className="muted">
          Runs of an agent, or runs given an AI connection’s key, are refused before they start once the budget is used up,
          and a run that uses it up is not retried. Runs already going finish their attempt.
        </p>
      }
      initialFocusRef={budget ? limitRef : targetRef}
      onClose={onClose}
      className="budget-dialog"
      footer={<DialogFormFooter formId={formId} saving={submission.pending} submitLabel={budget ? 'Save changes' : 'Create budget'} onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form budget-form" onSubmit={submit} noValidate>
        {budget && budgetUncounted(budget) && values.measure === 'cost' ? <UncountedNote budget={budget} /> : null}
        <fieldset className="form-section">
          <legend className="form-section__legend">Applies to</legend>
          <div className="choice-list">
            {(['agent', 'connection'] as const).map((scope) => (
              <Choice
                key={scope}
                type="radio"
                name={`${formId}-scope`}
                value={scope}
                checked={values.scope === scope}
                onChange={() => change({ scope, targetId: '' })}
                label={scope === 'agent' ? 'An agent' : 'An AI connection'}
                hint={scope === 'agent' ? 'Every run of the agent counts.' : 'Every run given its key counts, whichever agent it is.'}
              />
            ))}
          </div>
        </fieldset>

        <FormField label={scopeLabels[values.scope]} problem={problems.targetId}>
          {(control) => (
            <select ref={targetRef} {...control} className="input" value={values.targetId} onChange={(event) => change({ targetId: event.target.value })}>
              <option value="">{values.scope === 'agent' ? 'Choose an agent' : 'Choose an AI connection'}</option>
              {targets.map((target) => (
                <option key={target.id} value={target.id}>
                  {target.name}
                </option>
              ))}
            </select>
          )}
        </FormField>

        <fieldset className="form-section">
          <legend className="form-section__legend">Counts</legend>
          <div className="choice-list">
            {measureChoices.map((choice) => (
              <Choice
                key={choice.measure}
                type="radio"
                name={`${formId}-measure`}
                value={choice.measure}
                checked={values.measure === choice.measure}
                onChange={() => change({ measure: choice.measure })}
                label={choice.label}
                hint={choice.hint}
              />
            ))}
          </div>
        </fieldset>

        <fieldset className="form-section">
          <legend className="form-section__legend">Period</legend>
          <div className="choice-list">
            {periodChoices.map((choice) => (
              <Choice
                key={choice.period}
                type="radio"
                name={`${formId}-period`}
                value={choice.period}
                checked={values.period === choice.period}
                onChange={() => change({ period: choice.period })}
                label={choice.label}
                hint={choice.hint}
              />
            ))}
          </div>
        </fieldset>

        <FormField
          label={values.measure === 'cost' ? 'Limit (USD, estimated)' : 'Limit (tokens)'}
          hint={values.measure === 'cost' ? 'An estimate, not a bill: what the price table says the tokens cost.' : 'Input and output tokens together.'}
          problem={problems.limit}
        >
          {(control) => (
            <input
              ref={limitRef}
              {...control}
              className="input"
              type="text"
              inputMode={values.measure === 'cost' ? 'decimal' : 'numeric'}
              autoComplete="off"
              value={values.limit}
              onChange={(event) => change({ limit: event.target.value })}
            />
          )}
        </FormField>
        {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the budget." /> : null}
      </form>
    </ModalDialog>
  );
}
