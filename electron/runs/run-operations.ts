import { OperatorError } from '../../shared/errors';

/** What the console can be doing to a run's work that changes it (its store, its branch, its files, its record). */
export type RunOperation = 'land' | 'commit' | 'resolve' | 'push' | 'pull_request' | 'discard' | 'clean_up' | 'archive' | 'delete' | 'fetch_work';

/** Each operation as the refusal names it ("The console is already <doing> …"), done to `run`: "this run", or another one it names. */
function doing(operation: RunOperation, run: string): string {
  switch (operation) {
    case 'land':
      return `landing ${run}`;
    case 'commit':
      return `committing the changes of ${run}`;
    case 'resolve':
      return `handing the conflicts of ${run} to its agent`;
    case 'push':
      return `pushing the branch of ${run}`;
    case 'pull_request':
      return `opening the pull request of ${run}`;
    case 'discard':
      return `discarding the work of ${run}`;
    case 'clean_up':
      return `removing the files of ${run}`;
    case 'archive':
      return `archiving ${run}`;
    case 'delete':
      return `deleting ${run}`;
    case 'fetch_work':
      return `fetching the work of ${run} from its host`;
  }
}

/**
 * One change to a run at a time. Landing, commit, push, pull request, discard, clean-up, archive and
 * delete each read what the run holds, then change it after seconds of git; two of them on one run at
 * once (a double click, two windows, Land while Clean up removes the files) would act on what the
 * other is changing: a squash landed twice, a run deleted mid-landing. The second is refused, not
 * queued: queued, it would still happen once the first is done (a second squash, empty), which is
 * never what a repeated click meant. The refusal says what is under way and to wait for it.
 *
 * In-process: one console owns a data directory (data-dir-lock.ts). Reads (the dry run, the diff)
 * take no turn.
 */
export class RunOperations {
  private readonly inFlight = new Map<string, { operation: RunOperation; since: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `work` as the one change under way to each of `runIds` (a landing that discards the task's
   * other runs holds them all). Refused with `run_busy` when any of them has one under way already;
   * taken before the first await, so of two requests in the same instant exactly one goes ahead.
   */
  async exclusive<T>(runIds: string | readonly string[], operation: RunOperation, work: () => Promise<T>): Promise<T> {
    const ids = [...new Set(typeof runIds === 'string' ? [runIds] : runIds)];
    for (const runId of ids) {
      // The request is about its first run; another one busy (a run the landing would discard) is named.
      const refusal = this.refusal(runId, runId === ids[0] ? 'this run' : `another run this request names (${runId})`);
      if (refusal) throw refusal;
    }
    const since = this.now();
    for (const runId of ids) this.inFlight.set(runId, { operation, since });
    try {
      return await work();
    } finally {
      for (const runId of ids) this.inFlight.delete(runId);
    }
  }

  /** The change under way to the run, or null. */
  underWay(runId: string): RunOperation | null {
    return this.inFlight.get(runId)?.operation ?? null;
  }

  /** Why a change to the run cannot start now (another is under way), as the operator is told; null when it can. */
  refusal(runId: string, run = 'this run'): OperatorError | null {
    const current = this.inFlight.get(runId);
    if (!current) return null;
    const seconds = Math.max(0, Math.round((this.now() - current.since) / 1000));
    return new OperatorError({
      code: 'run_busy',
      reason: current.operation,
      message: `The console is already ${doing(current.operation, run)} (for ${seconds} s now), so this request was not carried out. Wait for that to finish, then look at the run again.`,
    });
  }
}
