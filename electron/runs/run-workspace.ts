import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RunDetail, RunDiff } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { diffTaskView, prepareTaskRoot, removeTaskRoot, taskRootPaths, taskWritableRoots } from '../confinement/task-root';
import type { StoredAgent } from '../ledger/agents-repository';
import type { Ledger } from '../ledger/ledger';
import type { Admission } from './admission';

/**
 * A run's folder on disk (its task root): how it is confined, what the agent changed in it, opening
 * it for the operator, and removing it (worktree and branch) when the run is archived or deleted.
 */
export class RunWorkspace {
  constructor(
    private readonly ledger: Ledger,
    private readonly dataDir: string,
  ) {}

  /** Environment, sandbox, network, home mode and writable roots: what the run detail shows. */
  confinementOf(admission: Admission | undefined, agent: StoredAgent | undefined, taskRoot: string | null): RunDetail['confinement'] {
    const environment = this.ledger.agents.getEnvironment(admission?.environmentId ?? agent?.environmentId ?? 'env_local');
    const kind = admission?.environmentKind ?? environment?.kind ?? 'local';
    return {
      environmentName: environment?.name ?? 'Unknown',
      environmentKind: kind,
      sandbox: kind === 'sandboxed' ? (process.platform === 'darwin' ? 'seatbelt' : 'bubblewrap') : 'none',
      network: kind === 'sandboxed' ? (admission?.networkMode ?? environment?.networkMode ?? 'provider-only') : 'open',
      homeMode: admission?.homeMode ?? agent?.homeMode ?? 'preconfigured',
      writableRoots: taskRoot ? taskWritableRoots(taskRootPaths(this.dataDir, path.basename(taskRoot))) : [],
    };
  }

  /** The run's view against its base revision: what the agent changed, committed or not. */
  async diff(runId: string): Promise<RunDiff> {
    const { taskRoot } = await this.existingTaskRoot(runId);
    const diff = await diffTaskView(taskRoot);
    return { baseRevision: taskRoot.baseRevision, files: diff.files, unifiedDiff: diff.unifiedDiff, truncated: diff.truncated };
  }

  /** Opens the run's view in the file manager of the machine the console runs on. */
  async openFolder(runId: string): Promise<{ path: string; opened: boolean }> {
    const { taskRoot } = await this.existingTaskRoot(runId);
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    // Opened means the opener said so (exit 0); one that is still running after a moment (some
    // stay in the foreground) is taken as having opened it. xdg-open without a desktop exits 3.
    const opened = await new Promise<boolean>((resolve) => {
      const child = spawn(opener, [taskRoot.view], { detached: true, stdio: 'ignore' });
      const timer = setTimeout(() => {
        child.unref();
        resolve(true);
      }, 3000);
      child.once('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
    return { path: taskRoot.view, opened };
  }

  async removeWorktree(row: { id: string; task_id: string }): Promise<void> {
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    await removeTaskRoot({ dataDir: this.dataDir, runId: row.id, project: project ?? { path: '', isGitRepo: false } });
  }

  private async existingTaskRoot(runId: string) {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.' });
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    if (!row.task_root || row.archived_at !== null || !existsSync(row.task_root) || !project) {
      throw new OperatorError({
        code: 'not_found',
        message: row.archived_at !== null ? 'This run was archived, and its worktree was cleaned up with it.' : 'This run has no working folder (it never started).',
      });
    }
    // Preparing is idempotent: on an existing task root it only reads its record.
    return { taskRoot: await prepareTaskRoot({ dataDir: this.dataDir, runId, project }) };
  }

}
