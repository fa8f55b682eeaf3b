import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { budgetUncounted, type Budget } from '../../../shared/usage';
import { ErrorAlert } from '../../ui/error-alert';
import { formatFullTimestamp } from '../../ui/format';
import { focusRouteTarget } from '../../ui/route-focus';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { budgetInput, budgetFormFromBudget, limitText, parseLimit } from './budget-form';
import { budgetKind, budgetStanding, budgetTarget, formatBudgetLimit, percentSummary, resetSummary, spentSummary } from './budget-labels';
import { UncountedNote } from './uncounted-note';
import { useSaveBudget } from './use-budgets';

/**
 * One budget: what it holds, what its period has used of it, when it is whole again, and its limit,
 * editable in place (raising it is the usual fix for a "Budget reached" notice, whose link lands
 * here with this field focused). `selected`: the budget the route names.
 */
export function BudgetRow({ budget, selected, onEdit, onDelete }: { budget: Budget; selected: boolean; onEdit: () => void; onDelete: () => void }) {
  const titleId = useId();
  const rowRef = useRef<HTMLLIElement>(null);
  const limitRef = useRef<HTMLInputElement>(null);
  const title = `${budgetKind(budget)} for ${budgetTarget(budget)}`;
  const used = percentSummary(budget);
  const standing = budgetStanding(budget);

  // The budget a link named: in view, its limit focused and selected, ready to be raised.
  useEffect(() => {
    if (!selected) return;
    if (focusRouteTarget(limitRef.current, { element: rowRef.current })) limitRef.current?.select();
  }, [selected]);

  return (
    <li
      ref={rowRef}
      className={`item-list__row budget-row${selected ? ' item-list__row--target' : ''}`}
      aria-labelledby={titleId}
      aria-current={selected ? 'true' : undefined}
      data-budget-id={budget.id}
    >
      <div className="item-list__main">
        <div className="item-list__line">
          <span id={titleId} className="item-list__name">
            {title}
          </span>
          <span className={`status-badge tone-${standing.tone}`}>
            <span className="status-badge__mark" aria-hidden="true" />
            {standing.label}
          </span>
        </div>
        <dl className="inline-facts" aria-label={`${title}: details`}>
          <div>
            <dt>Used</dt>
            <dd>
              {spentSummary(budget)} <span className="muted">({used})</span>
            </dd>
          </div>
          <div>
            <dt>Period</dt>
            <dd>
              <time dateTime={budget.resetsAt} title={formatFullTimestamp(budget.resetsAt)}>
                {resetSummary(budget)}
              </time>
            </dd>
          </div>
        </dl>
        <meter className="budget-row__meter" min={0} max={budget.limit} low={budget.limit * 0.8} high={budget.limit * 0.99} optimum={0} value={Math.min(budget.spent, budget.limit)} aria-label={`${title}: ${used} used`} />
        {budgetUncounted(budget) ? <UncountedNote budget={budget} /> : null}
        <LimitForm key={`${budget.id}|${budget.measure}`} budget={budget} title={title} limitRef={limitRef} />
      </div>
      <div className="item-list__actions">
        <button type="button" className="button button--small" aria-label={`Edit ${title}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="button button--small button--danger-quiet" aria-label={`Delete ${title}`} onClick={onDelete}>
          Delete
        </button>
      </div>
    </li>
  );
}

function LimitForm({ budget, title, limitRef }: { budget: Budget; title: string; limitRef: RefObject<HTMLInputElement | null> }) {
  const save = useSaveBudget();
  const submission = useSingleSubmit();
  // What the operator typed, until it is saved; else the limit as it is (changed elsewhere, it shows).
  const [draft, setDraft] = useState<string | null>(null);
  const limit = draft ?? limitText(budget.measure, budget.limit);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const inputId = useId();
  const problemId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      const parsed = parseLimit(budget.measure, limit);
      if (!parsed.ok) {
        setProblem(parsed.problem);
        limitRef.current?.focus();
        return;
      }
      return save.mutateAsync(budgetInput({ ...budgetFormFromBudget(budget), limit }, budget.id)).then((next) => {
        setDraft(null);
        const still = next.exhausted ? ' It is still reached.' : budgetUncounted(next) ? ' It still cannot count what has no price: set the price.' : '';
        setSaved(`Saved: the limit is ${formatBudgetLimit(next.measure, next.limit)}.${still}`);
      });
    });
  };

  return (
    <form className="budget-limit" onSubmit={submit} noValidate aria-label={`Limit of the ${title}`}>
      <label htmlFor={inputId}>{budget.measure === 'cost' ? 'Limit (USD, estimated)' : 'Limit (tokens)'}</label>
      <input
        ref={limitRef}
        id={inputId}
        className="input budget-limit__input"
        type="text"
        inputMode={budget.measure === 'cost' ? 'decimal' : 'numeric'}
        autoComplete="off"
        value={limit}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => {
          setProblem(null);
          setSaved(null);
          save.reset();
          setDraft(event.target.value);
        }}
      />
      <button type="submit" className="button button--small" aria-disabled={submission.pending || undefined}>
        Save limit
      </button>
      <span className="form-success" aria-live="polite">
        {submission.pending ? 'Saving…' : saved}
      </span>
      {problem ? (
        <p id={problemId} className="field__problem">
          {problem}
        </p>
      ) : null}
      {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the limit." /> : null}
    </form>
  );
}
