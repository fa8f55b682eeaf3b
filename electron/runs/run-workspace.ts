import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RunDetail, RunDiff } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { asGitFailure } from '../confinement/git-errors';
import type { SandboxProbe } from '../confinement/sandbox-probe';
import { openTaskRoot } from '../confinement/task-root';
import { taskRootPaths, type RunFileTools, type TaskRoot } from '../confinement/task-root-layout';
import { removeTaskRoot } from '../confinement/task-root-removal';
import { diffTaskView } from '../confinement/task-view-diff';
import type { ToolIsolation } from '../confinement/tool-sandbox';
import { openInFileManager } from '../file-manager';
import type { StoredAgent } from '../ledger/agents-repository';
import type { Ledger } from '../ledger/ledger';
import { savedAdmission, type Admission } from './admission';

export interface RunWorkspaceOptions {
  ledger: Ledger;
  dataDir: string;
  operatorHome: string;
  /** The sandbox probe's answer, awaited: the console's tools run in the same kind of sandbox as runs. */
  sandbox: () => Promise<SandboxProbe | null>;
}

/**
 * A run's folder on disk (its task root): how it is confined, what the agent changed in it, opening
 * it for the operator, and removing it (its repository, and the project's keep-ref) when the run is
 * archived or deleted. Everything here that reads or removes the run's files goes through the
 * console's tool sandbox (task-root.ts).
 */
export class RunWorkspace {
  private readonly ledger: Ledger;
  private readonly dataDir: string;

  constructor(private readonly options: RunWorkspaceOptions) {
    this.ledger = options.ledger;
    this.dataDir = options.dataDir;
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
    };
  }

  /** The run's view against its base revision: what the agent changed, committed or not. */
  async diff(runId: string): Promise<RunDiff> {
    const { taskRoot, admission } = await this.existingTaskRoot(runId);
    const tools = await this.toolsFor(admission, 'read');
    const diff = await diffTaskView(taskRoot, tools).catch((error: unknown) => {
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

  async removeWorktree(row: { id: string; task_id: string; admission_json: string | null }): Promise<void> {
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    const tools = await this.toolsFor(savedAdmission(row.admission_json), 'remove');
    await removeTaskRoot({ dataDir: this.dataDir, runId: row.id, project: project ?? { path: '', isGitRepo: false } }, tools);
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

  private async existingTaskRoot(runId: string): Promise<{ taskRoot: TaskRoot; admission: Admission | undefined }> {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.' });
    const taskRoot = row.task_root && row.archived_at === null && existsSync(row.task_root) ? await openTaskRoot(this.dataDir, runId) : null;
    if (!taskRoot) {
      throw new OperatorError({
        code: 'not_found',
        message: row.archived_at !== null ? 'This run was archived, and its working folder was cleaned up with it.' : 'This run has no working folder (it never started).',
      });
    }
    return { taskRoot, admission: savedAdmission(row.admission_json) };
  }
}
