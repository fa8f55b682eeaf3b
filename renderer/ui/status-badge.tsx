import type { RunStatus } from '../../shared/entities';
import { useTransportState } from '../app/use-core-sync';
import { isActiveRunStatus, runStatusDescription, runStatusLabel, runStatusTone, unverifiableStatus } from './run-status';

/**
 * A run's status, shown the same way everywhere: a word on a tinted chip, never colour alone. A run
 * that has not ended reads Unverifiable while the console service cannot be reached: the last word
 * heard from it is not proof that the run still goes on.
 */
export function StatusBadge({ status }: { status: RunStatus }) {
  const transport = useTransportState();
  const unverifiable = isActiveRunStatus(status) && transport !== 'connected';
  const label = unverifiable ? unverifiableStatus.label : runStatusLabel(status);
  const tone = unverifiable ? unverifiableStatus.tone : runStatusTone(status);
  const description = unverifiable ? unverifiableStatus.description : runStatusDescription(status);
  return (
    <span className={`status-badge tone-${tone}`} data-status={unverifiable ? 'unverifiable' : status} title={description}>
      <span className="status-badge__mark" aria-hidden="true" />
      {label}
    </span>
  );
}
