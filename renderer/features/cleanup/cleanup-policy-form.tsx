import { useId, useState, type FormEvent } from 'react';
import type { CleanupPolicy } from '../../../shared/landing';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useCleanupPolicy, useSetCleanupPolicy } from './use-cleanup';

const defaultDays = 14;

function PolicyForm({ policy }: { policy: CleanupPolicy }) {
  const save = useSetCleanupPolicy();
  const submission = useSingleSubmit();
  const [enabled, setEnabled] = useState(policy.removeSettledAfterDays !== null);
  const [days, setDays] = useState(String(policy.removeSettledAfterDays ?? defaultDays));
  const [problem, setProblem] = useState<string | null>(null);
  const toggleId = useId();
  const daysId = useId();
  const problemId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      const value = Number(days);
      if (enabled && (!Number.isInteger(value) || value < 1 || value > 3650)) {
        setProblem('Say after how many days: a whole number from 1 to 3650.');
        return;
      }
      return save.mutateAsync({ removeSettledAfterDays: enabled ? value : null });
    });
  };

  return (
    <form className="dialog-form" onSubmit={submit} noValidate aria-label="Clean-up policy">
      <div className="cleanup-policy">
        <label className="toggle" htmlFor={toggleId}>
          <input
            id={toggleId}
            type="checkbox"
            checked={enabled}
            onChange={(event) => {
              setProblem(null);
              save.reset();
              setEnabled(event.target.checked);
            }}
          />
          Remove the files of landed and discarded runs after
        </label>
        <input
          id={daysId}
          type="number"
          className="input"
          min={1}
          max={3650}
          value={days}
          disabled={!enabled}
          aria-label="Days after landing or discarding"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? problemId : undefined}
          onChange={(event) => {
            setProblem(null);
            save.reset();
            setDays(event.target.value);
          }}
        />
        <span>days</span>
        <button type="submit" className="button" aria-disabled={submission.pending || undefined}>
          Save policy
        </button>
        <span className="form-success" aria-live="polite">
          {save.isSuccess ? (save.data.removeSettledAfterDays === null ? 'Saved: files are removed only when you clean up.' : `Saved: after ${save.data.removeSettledAfterDays} days.`) : ''}
        </span>
      </div>
      {problem ? (
        <p id={problemId} className="field__problem">
          {problem}
        </p>
      ) : null}
      <p className="field__hint">Runs that hold unlanded work or could still be resumed are never removed by the policy; their history always stays.</p>
      {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the policy." /> : null}
    </form>
  );
}

/** The optional policy: task roots of landed and discarded runs go by themselves after N days. */
export function CleanupPolicySection() {
  const policy = useCleanupPolicy();
  return (
    <section className="settings-section" aria-labelledby="cleanup-policy-heading">
      <h2 id="cleanup-policy-heading" className="section-title">
        Policy
      </h2>
      {policy.isPending ? (
        <Loading what="the clean-up policy" />
      ) : policy.isError ? (
        <QueryError what="the clean-up policy" error={policy.error} onRetry={() => void policy.refetch()} />
      ) : (
        <PolicyForm policy={policy.data} />
      )}
    </section>
  );
}
