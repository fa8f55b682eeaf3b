import type { RunEventBus } from '../../events/run-events';
import type { RunNotices } from './run-notices';

/** A run stopped by a full disk joins the console's one Disk full notice (which may not be writable itself: it says so in the log). */
export function subscribeDiskFullNotices(lifecycle: RunEventBus, runNotices: RunNotices): void {
  lifecycle.on('diskFull', ({ runId, agent, taskId }) => runNotices.raiseOwnerNotice(runId, agent, { id: taskId, title: '' }, { code: 'disk_full', message: '' }));
}
