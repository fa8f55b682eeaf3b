import { existsSync } from 'node:fs';
import {
  cleanupPolicySchema,
  type CleanupCandidate,
  type CleanupPolicy,
  type DiskUsage,
  type LandingState,
  type RunHoldings,
} from '../../shared/landing';
import type { ChannelOutput } from '../../shared/contract';
import type { EventHub } from '../events/event-hub';
import { isoNow, toIso } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { LedgerSpaceFigures } from '../ledger/ledger-space';
import type { RunRow } from '../ledger/runs-repository';
import type { Logger } from '../platform/log';
import type { HostDiskUse, HostService } from '../hosts/host-service';
import { HostGitStores } from './host-git-stores';
import { endedStatuses } from '../runs/run-transitions';
import { savedAdmission } from '../runs/admission';
import type { RunWorkspace } from '../runs/run-workspace';

export interface CleanupServiceOptions {
  ledger: Ledger;
  workspace: RunWorkspace;
  events: EventHub;
  log: Logger;
  /** Resume would take the run up again (RunService.canResume): its files go only when the operator says so. */
  canResume: (runId: string) => boolean;
  now?: () => number;
  /** What runs take on each SSH host (HostService.diskUse), asked on Refresh. */
  hostsDisk?: () => Promise<HostDiskUse[]>;
  /** Removes the projects' git stores on the hosts that no run needs any more (HostService.pruneGitStores), after each clean-up. */
  pruneHostGitStores?: HostService['pruneGitStores'];
}

/** What a clean-up did: the runs whose files went, those kept (and why), and the hosts' git stores that went with them. */
export type CleanupOutcome = ChannelOutput<'cleanUpRuns'>;

export const cleanupPolicyKey = 'cleanup.policy';
const defaultPolicy: CleanupPolicy = { removeSettledAfterDays: null };
const policyIntervalMs = 60 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;
const largestShown = 5;

/** Landed (pushed too) or discarded: the work is in the project, on its remote, or thrown away on purpose. */
const settledStates: readonly LandingState[] = ['landed', 'pushed', 'discarded'];

/**
 * Finished runs' task roots and the disk they take (issue 13): each one's size, measured when the run
 * ends and on Refresh; Clean up's dry run (what each run holds) and the clean-up itself, which never
 * removes work that is not landed, or a run that could be resumed, unless the operator names it; and
 * the policy that removes settled runs' files after some days. The ledger keeps every run's history
 * and a summary of its changes after its files are gone (RunWorkspace.removeFiles).
 */
export class CleanupService {
  private readonly ledger: Ledger;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Measures and clean-ups under way: close waits for them, so none writes to a closed ledger. */
  private readonly pending = new Set<Promise<unknown>>();
  private applying: Promise<string[]> | null = null;
  /** The hosts' sizes from the last Refresh (ssh is not asked at every look at the page). */
  private hostsDisk: DiskUsage['hosts'] = [];
  /** The projects' git stores on hosts that are this console's, and whether a run still needs each. */
  private readonly gitStores: HostGitStores;

  constructor(private readonly options: CleanupServiceOptions) {
    this.ledger = options.ledger;
    this.now = options.now ?? Date.now;
    this.gitStores = new HostGitStores(options.ledger, this.now);
  }

  /** Applies the policy now and every hour after (the timer never keeps the process alive). */
  start(): void {
    if (this.closed || this.timer) return;
    void this.applyPolicy();
    this.timer = setInterval(() => void this.applyPolicy(), policyIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  // Disk ------------------------------------------------------------------------------------------

  /** Measures the run's task root and records it; null (nothing recorded) when its files are gone or du ran out of time. */
  measure(runId: string): Promise<number | null> {
    return this.track(async () => {
      const bytes = await this.options.workspace.size(runId);
      if (bytes !== null && !this.closed) {
        this.ledger.runs.recordDiskSize(runId, bytes, this.now());
        this.options.events.emit('runsChanged', { runIds: [runId] });
      }
      return bytes;
    });
  }

  /** A run ended: its size is measured in the background (a failure is only logged). */
  runEnded(runId: string): void {
    if (this.closed) return;
    const row = this.ledger.runs.row(runId);
    if (row) this.gitStores.learnFrom(row);
    this.measure(runId).catch((error: unknown) => this.options.log.warn('could not measure the run’s task root', { runId, error: String(error) }));
  }

  /** The Clean up page's sizes; with `refresh`, every task root is measured again first (the cached sizes otherwise). */
  async diskUsage(options: { refresh?: boolean | undefined } = {}): Promise<DiskUsage> {
    if (options.refresh) {
      // One at a time: du is I/O-bound, and two cores are shared with the runs.
      for (const row of this.ledger.runs.withFiles()) {
        await this.measure(row.id).catch((error: unknown) => this.options.log.warn('could not measure the run’s task root', { runId: row.id, error: String(error) }));
      }
      if (this.options.hostsDisk) this.hostsDisk = (await this.options.hostsDisk()).map((host) => ({ ...host, measuredAt: new Date(host.measuredAt).toISOString() }));
    }
    const measured = this.ledger.runs.withFiles().filter((row) => row.disk_bytes !== null);
    const largest = [...measured].sort((a, b) => b.disk_bytes! - a.disk_bytes!).slice(0, largestShown);
    const oldest = measured.reduce<number | null>((min, row) => (row.disk_measured_at !== null && (min === null || row.disk_measured_at < min) ? row.disk_measured_at : min), null);
    return {
      totalBytes: measured.reduce((sum, row) => sum + row.disk_bytes!, 0),
      runsWithFiles: this.ledger.runs.withFiles().length,
      largest: largest.map((row) => {
        const summary = this.ledger.runs.summary(row.id);
        return { runId: row.id, taskTitle: summary?.taskTitle ?? '', agentName: summary?.agentName ?? '', bytes: row.disk_bytes! };
      }),
      measuredAt: toIso(oldest),
      ledger: this.ledger.space.figures(),
      hosts: this.hostsDisk,
    };
  }

  /** Gives the ledger's free space (left by deleted runs) back to the disk; Clean up's Give back. */
  async reclaimLedgerSpace(): Promise<{ reclaimedBytes: number; ledger: LedgerSpaceFigures }> {
    const { reclaimedBytes } = await this.track(() => this.ledger.space.reclaim());
    this.options.log.info('ledger space given back to the disk', { reclaimedBytes });
    return { reclaimedBytes, ledger: this.ledger.space.figures() };
  }

  // Clean up --------------------------------------------------------------------------------------

  /** The dry run: every finished run whose task root is still there, and what it holds. Removes nothing. */
  async plan(): Promise<{ candidates: CleanupCandidate[] }> {
    const candidates: CleanupCandidate[] = [];
    for (const row of this.ledger.runs.withFiles()) {
      const summary = this.ledger.runs.summary(row.id);
      if (!summary) continue;
      const { holdings, error } = await this.holdingsOf(row);
      if (error === 'gone') continue;
      candidates.push({
        runId: row.id,
        taskTitle: summary.taskTitle,
        agentName: summary.agentName,
        status: row.status,
        landingState: row.landing_state,
        endedAt: toIso(row.ended_at),
        holdings,
        holdingsError: error,
        freelyRemovable: settledStates.includes(row.landing_state) && !workLeftOnHost(row),
        resumable: this.options.canResume(row.id),
        workLeftOnHost: workLeftOnHost(row),
      });
    }
    return { candidates };
  }

  /**
   * Removes the task roots of `runIds`. Landed and discarded runs that cannot be resumed go freely;
   * any other only when it is also in `confirmedRunIds`, else it is kept and `kept` says why. A run
   * that is queued or running is never touched.
   */
  cleanUp(input: { runIds: string[]; confirmedRunIds?: string[] | undefined }): Promise<CleanupOutcome> {
    return this.track(async () => {
      const confirmed = new Set(input.confirmedRunIds ?? []);
      const removed: string[] = [];
      const kept: Array<{ runId: string; reason: string }> = [];
      let freedBytes = 0;
      for (const runId of new Set(input.runIds)) {
        const refusal = this.removalRefusal(runId);
        if (refusal) {
          kept.push({ runId, reason: refusal });
          continue;
        }
        // The run's turn from here to its removal: it is not landed, resumed or removed by anyone else meanwhile.
        const outcome = await this.options.workspace.operations.exclusive(runId, 'clean_up', () => this.cleanUpOne(runId, confirmed.has(runId)));
        if ('kept' in outcome) kept.push({ runId, reason: outcome.kept });
        else {
          removed.push(runId);
          freedBytes += outcome.freedBytes;
        }
      }
      if (removed.length > 0) this.options.events.emit('runsChanged', { runIds: removed });
      const gitStores = await this.pruneGitStores();
      return { removed, kept, freedBytes: freedBytes + gitStores.reduce((sum, host) => sum + host.freedBytes, 0), gitStores };
    });
  }

  /**
   * The projects' git stores on the hosts that are this console's and that no run needs any more
   * (host-git-stores.ts) go with every clean-up, on every tested host: a store's last run cleaned up,
   * or its project removed from the console. The hosts' figures shown drop by what went.
   */
  private async pruneGitStores(): Promise<CleanupOutcome['gitStores']> {
    if (!this.options.pruneHostGitStores || this.closed) return [];
    this.gitStores.learnFromLedger();
    const pruned = await this.options.pruneHostGitStores({
      ours: (hostId) => this.gitStores.ours(hostId),
      needed: (hostId, projectId) => this.gitStores.needed(hostId, projectId),
    });
    for (const host of pruned) {
      this.gitStores.forget(host.hostId, host.removed);
      const shown = this.hostsDisk.find((each) => each.hostId === host.hostId);
      if (shown && host.freedBytes > 0) {
        if (shown.bytes !== null) shown.bytes = Math.max(0, shown.bytes - host.freedBytes);
        if (shown.gitStoreBytes !== null) shown.gitStoreBytes = Math.max(0, shown.gitStoreBytes - host.freedBytes);
        shown.gitStores = Math.max(0, shown.gitStores - host.removed.length);
      }
    }
    return pruned.filter((host) => host.removed.length > 0 || host.error !== null).map((host) => ({ host: host.name, removed: host.removed.length, freedBytes: host.freedBytes, error: host.error }));
  }

  private async cleanUpOne(runId: string, confirmed: boolean): Promise<{ freedBytes: number } | { kept: string }> {
    const row = this.ledger.runs.row(runId)!;
    const needsConfirmation = !settledStates.includes(row.landing_state) || this.options.canResume(runId) || workLeftOnHost(row) !== null;
    if (needsConfirmation && !confirmed) return { kept: await this.confirmationReason(row) };
    const bytes = row.disk_bytes ?? (await this.options.workspace.size(runId).catch(() => null)) ?? 0;
    try {
      // Named by the operator: that includes work left on its host (the confirmation said so).
      await this.options.workspace.removeFiles(runId, { discardWorkOnHost: confirmed });
      this.options.log.info('run files cleaned up', { runId, bytes, confirmed: needsConfirmation });
      return { freedBytes: bytes };
    } catch (error) {
      return { kept: `Its files could not be removed: ${errorMessage(error)}` };
    }
  }

  // Policy ----------------------------------------------------------------------------------------

  policy(): CleanupPolicy {
    const parsed = cleanupPolicySchema.safeParse(this.ledger.settings.read(cleanupPolicyKey));
    return parsed.success ? parsed.data : defaultPolicy;
  }

  setPolicy(policy: CleanupPolicy): CleanupPolicy {
    const parsed = cleanupPolicySchema.parse(policy);
    this.ledger.settings.write(cleanupPolicyKey, parsed, this.now());
    void this.applyPolicy();
    return parsed;
  }

  /**
   * Removes the task roots of runs that landed or were discarded more than the policy's days ago.
   * The policy is the operator's say-so for those runs, resumable or not; a run not landed is never
   * removed by it. Returns the runs whose files it removed.
   */
  applyPolicy(): Promise<string[]> {
    // One at a time; the next call after it finished starts a new one.
    this.applying ??= this.track(() => this.removeDue()).finally(() => {
      this.applying = null;
    });
    return this.applying;
  }

  private async removeDue(): Promise<string[]> {
    const days = this.policy().removeSettledAfterDays;
    if (days === null || this.closed) return [];
    const cutoff = this.now() - days * dayMs;
    // Work never brought back from its host is not settled, whatever the run's state says: the policy leaves it.
    const due = this.ledger.runs.withFiles().filter((row) => {
      if (workLeftOnHost(row)) return false;
      const settledAt = row.landing_state === 'discarded' ? row.discarded_at : settledStates.includes(row.landing_state) ? row.landed_at : null;
      return settledAt !== null && settledAt <= cutoff;
    });
    const removed: string[] = [];
    for (const row of due) {
      if (this.closed) break;
      if (this.removalRefusal(row.id)) continue;
      try {
        await this.options.workspace.operations.exclusive(row.id, 'clean_up', () => this.options.workspace.removeFiles(row.id));
        removed.push(row.id);
        this.options.log.info('run files removed by the clean-up policy', { runId: row.id, days });
      } catch (error) {
        this.options.log.warn('the clean-up policy could not remove a run’s files', { runId: row.id, error: errorMessage(error) });
      }
    }
    if (removed.length > 0) {
      this.options.events.emit('runsChanged', { runIds: removed });
      await this.pruneGitStores();
    }
    return removed;
  }

  // Helpers ---------------------------------------------------------------------------------------

  /** Why the run's files cannot go (now, or at all, whatever the operator confirmed); null when they can. */
  private removalRefusal(runId: string): string | null {
    const row = this.ledger.runs.row(runId);
    if (!row) return 'That run is no longer in the console.';
    if (!endedStatuses.includes(row.status)) return 'It is queued or running: its files are never removed while it may still be working.';
    if (row.files_removed_at !== null) return `Its files were already removed on ${isoNow(row.files_removed_at)}.`;
    if (!row.task_root) return 'It has no files (it never started).';
    // Being landed, pushed, discarded or removed by another request: kept, and the answer says why.
    return this.options.workspace.operations.refusal(runId)?.message ?? null;
  }

  private async confirmationReason(row: RunRow): Promise<string> {
    const host = workLeftOnHost(row);
    if (host) {
      return `Its work is still on ${host}: it was never brought back, so its Changes here do not show it. Fetch the work again from its notice, or confirm it by name to discard that work with its files.`;
    }
    if (settledStates.includes(row.landing_state)) return 'It could still be resumed: confirm it by name to remove its files.';
    const { holdings, unlandedCount, error } = await this.holdingsOf(row);
    if (error) return `It is not landed, and what it holds could not be read (${error}): confirm it by name to remove it.`;
    const held = [
      holdings.uncommittedFiles.length > 0 ? plural(holdings.uncommittedFiles.length, 'uncommitted file') : null,
      unlandedCount > 0 ? plural(unlandedCount, 'commit not landed', 'commits not landed') : null,
    ].filter(Boolean);
    return held.length > 0 ? `Its work is not landed (${held.join(', ')}): confirm it by name to remove it.` : 'It is not landed: confirm it by name to remove it.';
  }

  /** What the run holds; `error` says why it could not be read ('gone': its task root is not there). */
  private async holdingsOf(row: RunRow): Promise<{ holdings: RunHoldings; unlandedCount: number; error: string | null }> {
    const diskBytes = row.disk_bytes;
    try {
      const read = await this.options.workspace.holdings(row.id);
      return { holdings: { uncommittedFiles: read.uncommittedFiles, unlandedCommits: read.unlandedCommits, diskBytes }, unlandedCount: read.unlandedCommitCount, error: null };
    } catch (error) {
      // Gone from the disk (removed by hand): nothing to list. Any other failure is said, never shown as "holds nothing".
      const gone = !row.task_root || !existsSync(row.task_root);
      return { holdings: { uncommittedFiles: [], unlandedCommits: [], diskBytes }, unlandedCount: 0, error: gone ? 'gone' : errorMessage(error) };
    }
  }

  private track<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise)).catch(() => undefined);
    return promise;
  }
}

/** The host holding the run's work only (its fetch failed), or null: such a run's files go only with the operator's word. */
function workLeftOnHost(row: RunRow): string | null {
  if (row.host_work_unfetched_at === null) return null;
  return savedAdmission(row.admission_json)?.host?.name ?? 'its SSH host';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
