import type { RunStatus } from '../../shared/entities';
import { useTransportState } from '../app/use-core-sync';
import { isActiveRunStatus, runStatusDescription, runStatusLabel, runStatusTone, unverifiableHostDescription, unverifiableStatus } from './run-status';

/**
 * A run's status, shown the same way everywhere: a word on a tinted chip, never colour alone. A run
 * that has not ended reads Unverifiable while the console service cannot be reached, or while the
 * SSH host it runs on cannot be (`hostUnreachable`): the last word heard from it is not proof that
 * the run still goes on.
 */
export function StatusBadge({ status, hostUnreachable = false }: { status: RunStatus; hostUnreachable?: boolean }) {
  const transport = useTransportState();
  const active = isActiveRunStatus(status);
  const serviceGone = active && transport !== 'connected';
  const unverifiable = serviceGone || (active && hostUnreachable);
  const label = unverifiable ? unverifiableStatus.label : runStatusLabel(status);
  const tone = unverifiable ? unverifiableStatus.tone : runStatusTone(status);
  const description = serviceGone ? unverifiableStatus.description : unverifiable ? unverifiableHostDescription : runStatusDescription(status);
  return (
    <span className={`status-badge tone-${tone}`} data-status={unverifiable ? 'unverifiable' : status} title={description}>
      <span className="status-badge__mark" aria-hidden="true" />
      {label}
    </span>
  );
}
