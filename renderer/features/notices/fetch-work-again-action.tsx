import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { ErrorAlert } from '../../ui/error-alert';

/** A run's work left on its SSH host (its fetch failed) is fetched again from its notice. */
export function isAboutWorkLeftOnHost(kind: string): boolean {
  return kind === 'host_work_not_fetched';
}

/**
 * Fetch the work again, on a "Run’s work left on its host" notice: once the reason the notice names is
 * fixed (the host answers again, say), the console tries once more; the notice resolves when the work
 * is back, and a failure says why (and the notice is rewritten with it).
 */
export function FetchWorkAgainAction({ runId, labelledBy }: { runId: string; labelledBy: string }) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  // A double click sends one request: the second lands before React re-renders with isPending.
  const sent = useRef(false);
  const fetchAgain = useMutation({
    mutationFn: () => client.fetchRunWorkAgain({ runId }),
    onSettled: async () => {
      sent.current = false;
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runDiff(runId) }),
      ]);
    },
  });
  return (
    <div className="notice__folder" role="group" aria-labelledby={labelledBy}>
      <button
        type="button"
        className="button button--primary"
        aria-describedby={labelledBy}
        aria-disabled={fetchAgain.isPending || undefined}
        onClick={() => {
          if (fetchAgain.isPending || sent.current) return;
          sent.current = true;
          fetchAgain.mutate();
        }}
      >
        Fetch the work again
      </button>
      <div aria-live="polite">
        {fetchAgain.isPending ? <p className="muted">Fetching the run’s work from its host…</p> : null}
        {fetchAgain.isSuccess ? (
          <p>
            The run’s work is back.{' '}
            <Link href={actionPath({ kind: 'run', runId })} className="table-link">
              See its changes
            </Link>
          </p>
        ) : null}
      </div>
      {fetchAgain.isError ? <ErrorAlert error={fetchAgain.error} prefix="The work was not fetched." /> : null}
    </div>
  );
}
