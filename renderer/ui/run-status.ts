import type { RunStatus } from '../../shared/entities';

/** How a status reads and which colour family shows it. The words always carry the meaning. */
export type StatusTone = 'neutral' | 'progress' | 'success' | 'danger' | 'warning' | 'muted' | 'stranded';

const statusInfo: Record<RunStatus, { label: string; tone: StatusTone; description: string }> = {
  queued: { label: 'Queued', tone: 'neutral', description: 'Waiting for admission' },
  admitted: { label: 'Admitted', tone: 'neutral', description: 'Admitted, waiting for capacity' },
  preparing: { label: 'Preparing', tone: 'progress', description: 'Preparing the task root' },
  setting_up: { label: 'Setting up', tone: 'progress', description: 'Running the project’s setup command before the agent' },
  running: { label: 'Running', tone: 'progress', description: 'The agent is working' },
  succeeded: { label: 'Succeeded', tone: 'success', description: 'Finished successfully' },
  failed: { label: 'Failed', tone: 'danger', description: 'Finished with a failure' },
  cancelled: { label: 'Cancelled', tone: 'muted', description: 'Cancelled before it finished' },
  refused: { label: 'Refused', tone: 'warning', description: 'Refused at admission: nothing was started' },
  stranded: { label: 'Stranded', tone: 'stranded', description: 'The console stopped while it ran' },
};

export function runStatusLabel(status: RunStatus): string {
  return statusInfo[status].label;
}

export function runStatusTone(status: RunStatus): StatusTone {
  return statusInfo[status].tone;
}

export function runStatusDescription(status: RunStatus): string {
  return statusInfo[status].description;
}

/**
 * A run that has not ended, seen while the console service cannot be reached: whether its process
 * still runs is not known, so it is not called running (issue 27: live, unverifiable, or ended).
 */
export const unverifiableStatus = {
  label: 'Unverifiable',
  tone: 'muted' as StatusTone,
  description: 'The console service cannot be reached, so whether this run still goes on is not known. It says so again when the service answers.',
};

/** The same, when it is the SSH host the run executes on that cannot be reached (issue 28). */
export const unverifiableHostDescription =
  'The SSH host this run executes on cannot be reached, so whether the run still goes on there is not known. The console reconnects by itself and loses no output; the notice says what to check.';

/** A run that has not reached an outcome yet: its duration still grows. */
export function isActiveRunStatus(status: RunStatus): boolean {
  return status === 'queued' || status === 'admitted' || status === 'preparing' || status === 'setting_up' || status === 'running';
}
