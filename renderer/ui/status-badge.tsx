import type { RunStatus } from '../../shared/entities';
import { runStatusDescription, runStatusLabel, runStatusTone } from './run-status';

/** A run's status, shown the same way everywhere: a word on a tinted chip, never colour alone. */
export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span className={`status-badge tone-${runStatusTone(status)}`} data-status={status} title={runStatusDescription(status)}>
      <span className="status-badge__mark" aria-hidden="true" />
      {runStatusLabel(status)}
    </span>
  );
}
