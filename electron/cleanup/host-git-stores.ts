import { z } from 'zod';
import type { Ledger } from '../ledger/ledger';
import type { RunRow } from '../ledger/runs-repository';
import { savedAdmission } from '../runs/admission';
import { endedStatuses } from '../runs/run-transitions';

/**
 * The projects' git stores on SSH hosts (hosts/remote-git/send-base-revision.ts: one per project on
 * each host, which runs' repositories there borrow their objects from), as Clean up removes them.
 *
 * Which stores are this console's: a host account may serve two consoles (a laptop and a desktop),
 * and the other's stores are not this one's to judge. So the console keeps, in its settings, the
 * projects it made a store for on each host, learnt from its runs there as they end (and from every
 * host run in the ledger at each clean-up); a project removed from the console stays in that list
 * until its stores are gone.
 */

const storesKey = 'cleanup.host-git-stores';
const storesSchema = z.record(z.string(), z.array(z.string()));

export class HostGitStores {
  constructor(
    private readonly ledger: Ledger,
    private readonly now: () => number,
  ) {}

  /** A run ended: the store its host got for its project is this console's. */
  learnFrom(row: Pick<RunRow, 'task_id' | 'task_root' | 'admission_json'>): void {
    const hostId = savedAdmission(row.admission_json)?.host?.id;
    const projectId = row.task_root ? this.ledger.tasks.get(row.task_id)?.projectId : undefined;
    if (!hostId || !projectId) return;
    const known = this.read();
    if (known[hostId]?.includes(projectId)) return;
    known[hostId] = [...(known[hostId] ?? []), projectId];
    this.ledger.settings.write(storesKey, known, this.now());
  }

  /** Every host run in the ledger learnt (runs that ended before the console kept this list, say). */
  learnFromLedger(): void {
    for (const row of this.ledger.runs.withFiles()) this.learnFrom(row);
  }

  /** The projects whose stores on the host are this console's. */
  ours(hostId: string): ReadonlySet<string> {
    return new Set(this.read()[hostId] ?? []);
  }

  /** The store went: it is no longer this console's to remove. */
  forget(hostId: string, projectIds: readonly string[]): void {
    if (projectIds.length === 0) return;
    const known = this.read();
    known[hostId] = (known[hostId] ?? []).filter((projectId) => !projectIds.includes(projectId));
    if (known[hostId].length === 0) delete known[hostId];
    this.ledger.settings.write(storesKey, known, this.now());
  }

  /**
   * Whether a project's store on a host is still needed: a run of the project that executed there
   * still has its task root there (not cleaned up yet), or a run of the project has not ended (it may
   * be about to send its base there). A project no longer in the console needs none. Read from the
   * ledger at the moment of asking: HostService.pruneGitStores asks again in the store's turn, just
   * before it removes it.
   */
  needed(hostId: string, projectId: string): boolean {
    if (!this.ledger.projects.get(projectId)) return false;
    return this.ledger.runs.idsOfProject(projectId).some((runId) => {
      const row = this.ledger.runs.row(runId);
      if (!row) return false;
      if (!endedStatuses.includes(row.status)) return true;
      return row.task_root !== null && row.files_removed_at === null && savedAdmission(row.admission_json)?.host?.id === hostId;
    });
  }

  private read(): Record<string, string[]> {
    const parsed = storesSchema.safeParse(this.ledger.settings.read(storesKey));
    return parsed.success ? parsed.data : {};
  }
}
