import { existsSync } from 'node:fs';
import path from 'node:path';
import { runDiffSchema, type RunDetail, type RunDiff } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { asGitFailure } from '../git/git-errors';
import { readRunHoldings, type RunHoldingsRead } from '../task-root/run-holdings';
import type { SandboxProbe } from '../sandbox/sandbox-probe';
import { openTaskRoot } from '../task-root/task-root';
import { taskRootPaths, type RunFileTools, type TaskRoot } from '../task-root/task-root-layout';
import { removeTaskRoot } from '../task-root/task-root-removal';
import { measureTaskRoot } from '../task-root/task-root-size';
import { diffTaskView } from '../task-root/task-view-diff';
import type { ToolIsolation } from '../sandbox/tool-sandbox';
import { openInFileManager } from '../platform/file-manager';
import type { StoredAgent } from '../ledger/agents-repository';
import { isoNow } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { RunRow } from '../ledger/runs-repository';
import type { Logger } from '../platform/log';
import { savedAdmission, type Admission } from './admission';
import { RunOperations } from './run-operations';
import type { RunHosts } from '../hosts/remote-run/host-connection';
import { consoleFolderName, remoteRunLayout, removeFromHost } from '../hosts/remote-run/remote-supervisor';

export interface RunWorkspaceOptions {
  ledger: Ledger;
  dataDir: string;
  operatorHome: string;
  /** The sandbox probe's answer, awaited: the console's tools run in the same kind of sandbox as runs. */
  sandbox: () => Promise<SandboxProbe | null>;
  log: Logger;
  now: () => number;
  /** SSH hosts: a run that executed on one has a task root there too, removed with this one. */
  hosts?: RunHosts | undefined;
}

/** Why a removal is refused while the run's work is on its host only. */
export const workLeftOnHostReason = 'host_work_not_fetched';

export interface RemovalOptions {
  /** The run's work was not brought back from its host: the operator confirmed it is thrown away with its files. */
  discardWorkOnHost?: boolean;
}

/** How much of the unified diff the ledger keeps once a run's files are removed (the file list is always whole). */
export const keptDiffBytes = 256 * 1024;

/**
 * A run's folder on disk (its task root): how it is confined, what the agent changed in it and what
 * it holds, its size, opening it for the operator, and removing it (its repository, and the
 * project's keep-ref) when the run is archived, discarded, cleaned up or deleted. Everything here
 * that reads or removes the run's files goes through the console's tool sandbox (task-root.ts).
 */
export class RunWorkspace {
  private readonly ledger: Ledger;
  readonly dataDir: string;
  /**
   * The change under way to each run's work (landing, commit, push, discard, clean-up, archive,
   * delete): one at a time per run, whichever service asks. A run with one under way is not resumed.
   */
  readonly operations: RunOperations;
  private readonly filesRemovedListeners: Array<(runId: string) => void> = [];

  constructor(private readonly options: RunWorkspaceOptions) {
    this.ledger = options.ledger;
    this.dataDir = options.dataDir;
    this.operations = new RunOperations(options.now);
  }

  /** Environment, sandbox, network, home mode and writable roots: what the run detail shows. */
  confinementOf(
    admission: Admission | undefined,
    agent: StoredAgent | undefined,
    row: { task_root: string | null; base_revision: string | null },
    probe: SandboxProbe | null,
  ): RunDetail['confinement'] {
    const environment = this.ledger.environments.get(admission?.environmentId ?? agent?.environmentId ?? 'env_local');
    const kind = admission?.environmentKind ?? environment?.kind ?? 'local';
    const sandboxed = kind === 'sandboxed';
    const level = probe?.available ? probe.level : process.platform === 'darwin' ? 'seatbelt' : 'bubblewrap';
    const setup = probe?.setup ?? null;
    const paths = row.task_root ? taskRootPaths(this.dataDir, path.basename(row.task_root)) : null;
    if (admission?.host) return this.confinementOnHost(admission, environment?.name ?? 'Unknown', row);
    return {
      environmentName: environment?.name ?? 'Unknown',
      environmentKind: kind,
      sandbox: sandboxed ? level : 'none',
      network: sandboxed ? (admission?.networkMode ?? environment?.networkMode ?? 'provider-only') : 'open',
      homeMode: admission?.homeMode ?? agent?.homeMode ?? 'preconfigured',
      runsAs: sandboxed && level === 'bubblewrap' && setup?.user ? `nobody (uid ${setup.user.uid}): the console runs as root` : null,
      syscallFilter: sandboxed && level === 'bubblewrap' && Boolean(setup?.seccompFile),
      writableRoots: paths
        ? [paths.view, paths.tmp, paths.cache, paths.home, ...(row.base_revision ? [path.join(paths.root, 'git')] : [])]
        : [],
      host: null,
    };
  }

  /** A run on an SSH host is confined there, by the same rules (confine-on-host.ts): its writable roots are the host's. */
  private confinementOnHost(admission: Admission, environmentName: string, row: { task_root: string | null }): RunDetail['confinement'] {
    const sandboxed = admission.environmentKind === 'sandboxed';
    const test = this.ledger.hosts.get(admission.host!.id)?.lastTest;
    const home = test?.outcome === 'ready' ? test.report.home : null;
    const runDir = home && row.task_root ? path.posix.join(home, consoleFolderName, 'runs', path.basename(row.task_root)) : null;
    return {
      environmentName,
      environmentKind: admission.environmentKind,
      sandbox: sandboxed ? 'bubblewrap' : 'none',
      network: sandboxed ? admission.networkMode : 'open',
      homeMode: admission.homeMode,
      runsAs: null,
      syscallFilter: sandboxed,
      writableRoots: runDir ? ['view', 'tmp', 'cache', 'home'].map((folder) => `${runDir}/${folder}`) : [],
      host: admission.host!.name,
    };
  }

  /**
   * The run's view against its base revision: what the agent changed, committed or not. Once its
   * files are removed, the summary the ledger kept of them then, with when they were removed.
   */
  async diff(runId: string, options: { maxDiffBytes?: number } = {}): Promise<RunDiff> {
    const row = this.ledger.runs.row(runId);
    if (row && row.files_removed_at !== null) return keptDiff(row, row.files_removed_at);
    const { taskRoot, admission } = await this.existingTaskRoot(runId);
    const tools = await this.toolsFor(admission, 'read');
    const diff = await diffTaskView(taskRoot, tools, options).catch((error: unknown) => {
      throw asGitFailure(error, { repository: taskRoot.view, doing: 'read the run’s changes', retry: 'refresh the changes' });
    });
    return {
      baseRevision: taskRoot.baseRevision,
      files: diff.files,
      unifiedDiff: diff.unifiedDiff,
      truncated: diff.truncated,
      nestedRepositories: diff.nestedRepositories,
      filesRemovedAt: null,
    };
  }

  /** Opens the run's view in the file manager of the machine the console runs on. */
  async openFolder(runId: string): Promise<{ path: string; opened: boolean }> {
    const { taskRoot } = await this.existingTaskRoot(runId);
    const opened = await openInFileManager(taskRoot.view);
    return { path: taskRoot.view, opened };
  }

  /** What the run holds that the project does not have: its uncommitted files and its commits not landed. */
  async holdings(runId: string): Promise<RunHoldingsRead> {
    const { row, taskRoot, admission } = await this.existingTaskRoot(runId);
    const tools = await this.toolsFor(admission, 'read');
    return readRunHoldings(taskRoot, tools, { landedRunTip: row.landed_run_tip }).catch((error: unknown) => {
      throw asGitFailure(error, { repository: taskRoot.view, doing: 'read what the run holds', retry: 'try again' });
    });
  }

  /**
   * The task root's size on disk; null when its files are gone or du ran out of time. `du` only looks
   * at names and sizes, never into a file, and never follows a link: like a removal, it may go ahead
   * without an OS sandbox, with the hardened tool alone.
   */
  async size(runId: string): Promise<number | null> {
    const row = this.ledger.runs.row(runId);
    if (!row?.task_root || row.files_removed_at !== null || !existsSync(row.task_root)) return null;
    const tools = await this.toolsFor(savedAdmission(row.admission_json), 'remove');
    return measureTaskRoot(taskRootPaths(this.dataDir, runId), tools);
  }

  /**
   * Removes the run's files (archive, clean up, discard), keeping first in the ledger a summary of
   * what its Changes show (the file list with line counts, the unified diff cut at keptDiffBytes), so
   * the run detail still shows what it changed, and when its files went. A run whose changes cannot
   * be read (its sandbox is not available here) keeps no summary, and goes all the same: the operator
   * asked for it. The caller holds the run's turn (`operations`): no other change to it meanwhile.
   */
  async removeFiles(runId: string, options: RemovalOptions = {}): Promise<void> {
    const row = this.ledger.runs.row(runId);
    if (!row || row.files_removed_at !== null) return;
    this.requireWorkBack(row, options);
    let summary: string | null = null;
    if (row.task_root && existsSync(row.task_root)) {
      summary = await this.diff(runId, { maxDiffBytes: keptDiffBytes }).then(
        (diff) => JSON.stringify(diff),
        (error: unknown) => {
          this.options.log.warn('no summary of the run’s changes could be kept', { runId, error: String(error) });
          return null;
        },
      );
    }
    await this.removeWorktree(row, options);
    this.ledger.runs.recordFilesRemoved(runId, this.options.now(), summary);
    for (const listener of this.filesRemovedListeners) listener(runId);
  }

  /**
   * A run whose work was not brought back from its host (host-work.ts) has it there only: its task
   * root there goes only when the operator said to discard that work, never as a side effect.
   */
  private requireWorkBack(row: { id: string; admission_json: string | null }, options: RemovalOptions): void {
    if (options.discardWorkOnHost || this.ledger.runs.hostWorkUnfetchedSince(row.id) === null) return;
    const host = savedAdmission(row.admission_json)?.host?.name ?? 'its host';
    throw new OperatorError({
      code: 'conflict',
      reason: workLeftOnHostReason,
      message: `This run’s work is still on ${host}: it was not brought back, so removing the run’s files would lose it. Fetch the work again from the run’s notice, or remove it in Clean up, confirming that its work is discarded.`,
      actionUrl: actionRoute({ kind: 'run', runId: row.id }),
    });
  }

  /** Kills whatever of the run is left on its host and removes its task root there (the supervisor's `clean`). */
  private async removeFromHost(runId: string, host: { id: string; name: string }): Promise<void> {
    if (!this.options.hosts) throw new Error(`The run's files on ${host.name} cannot be removed: this console has no SSH hosts.`);
    if (!this.ledger.hosts.get(host.id)) {
      this.options.log.warn('the run’s host is no longer in the console: its files there are left', { runId, host: host.name });
      return;
    }
    const connection = await this.options.hosts.connection(host.id);
    await removeFromHost(connection, remoteRunLayout(connection, runId));
    this.options.log.info('run files removed from its host', { runId, host: host.name });
  }

  /** Called once a run's files were removed (archive, clean-up, discard): what stood for its work can go. */
  onFilesRemoved(listener: (runId: string) => void): void {
    this.filesRemovedListeners.push(listener);
  }

  async removeWorktree(row: { id: string; task_id: string; admission_json: string | null }, options: RemovalOptions = {}): Promise<void> {
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    const admission = savedAdmission(row.admission_json);
    this.requireWorkBack(row, options);
    // The host's copy goes first: a host that cannot be reached keeps the run's files here too, so
    // Clean up can be asked again once it answers, and nothing is left behind on the host unnoticed.
    if (admission?.host) await this.removeFromHost(row.id, admission.host);
    const tools = await this.toolsFor(admission, 'remove');
    await removeTaskRoot({ dataDir: this.dataDir, runId: row.id, project: project ?? { path: '', isGitRepo: false } }, tools);
    // What was left on the host went with the rest, as the operator said: nothing stands for it any more.
    if (this.ledger.runs.hostWorkUnfetchedSince(row.id) !== null) {
      this.ledger.runs.setHostWorkUnfetched(row.id, null);
      this.options.log.info('run’s work left on its host discarded, as the operator confirmed', { runId: row.id, host: admission?.host?.name ?? null });
    }
  }

  /**
   * How the console's tools reach this run's files: in the OS sandbox when there is one (as the run's
   * own user, so it can read what the run wrote). Without one, the hardened tools alone, which is
   * enough only for a `local` run: a sandboxed run's changes are not read outside a sandbox. (A
   * removal is rm and find, which never follow a link; it goes ahead either way.)
   */
  async toolsFor(admission: Admission | undefined, purpose: 'read' | 'remove'): Promise<RunFileTools> {
    const probe = await this.options.sandbox();
    const sandboxed = admission?.environmentKind === 'sandboxed';
    let isolation: ToolIsolation;
    if (probe?.available && probe.level === 'bubblewrap' && probe.setup) {
      isolation = { kind: 'bubblewrap', setup: { ...probe.setup, user: sandboxed ? probe.setup.user : null } };
    } else if (probe?.available && probe.level === 'seatbelt') {
      isolation = { kind: 'seatbelt' };
    } else if (!sandboxed || purpose === 'remove') {
      isolation = { kind: 'none' };
    } else {
      throw new OperatorError({
        code: 'sandbox_unavailable',
        reason: 'sandbox_unavailable',
        message: `This run was sandboxed, and its files are only read inside a sandbox, which is not available here${probe?.reason ? ` (${probe.reason})` : ''}. ${probe?.hint ?? ''}`.trim(),
      });
    }
    return { isolation, operatorHome: this.options.operatorHome };
  }

  private async existingTaskRoot(runId: string): Promise<{ row: RunRow; taskRoot: TaskRoot; admission: Admission | undefined }> {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.' });
    const present = row.task_root && row.archived_at === null && row.files_removed_at === null && existsSync(row.task_root);
    const taskRoot = present ? await openTaskRoot(this.dataDir, runId) : null;
    if (!taskRoot) {
      throw new OperatorError({
        code: 'not_found',
        message:
          row.archived_at !== null
            ? 'This run was archived, and its working folder was cleaned up with it.'
            : row.files_removed_at !== null
              ? `This run’s files were removed on ${isoNow(row.files_removed_at)}; its history stays.`
              : present
                ? 'This run’s folder has lost the record the console wrote when it prepared it, so its files are not read.'
                : 'This run has no working folder (it never started).',
      });
    }
    return { row, taskRoot, admission: savedAdmission(row.admission_json) };
  }
}

/** The summary kept when the run's files were removed. */
function keptDiff(row: RunRow, removedAt: number): RunDiff {
  const kept = row.diff_summary_json ? runDiffSchema.safeParse(parseJson(row.diff_summary_json)) : null;
  if (!kept?.success) {
    throw new OperatorError({
      code: 'not_found',
      message: `This run’s files were removed on ${isoNow(removedAt)}, and no summary of its changes was kept then (its changes could not be read, or an earlier version of the console removed them).`,
    });
  }
  return { ...kept.data, filesRemovedAt: isoNow(removedAt) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
