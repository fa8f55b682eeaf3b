import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/**
 * "Compare runs" in a run's header, once its task has run more than once. Asking for two runs of the
 * task is enough to know; if that fails the link is simply not offered (the Tasks page has it too).
 */
export function CompareRunsLink({ taskId }: { taskId: string }) {
  const client = useOperatorClient();
  const runs = useQuery({ queryKey: queryKeys.taskRunCount(taskId), queryFn: () => client.listRuns({ taskId, limit: 2 }) });
  if ((runs.data?.runs.length ?? 0) < 2) return null;
  return (
    <Link href={actionPath({ kind: 'task-compare', taskId })} className="button">
      Compare runs
    </Link>
  );
}
