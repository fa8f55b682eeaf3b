import { OperatorError } from '../../../shared/errors';
import { prepareTaskRoot as makeTaskRoot } from '../../task-root/task-root';
import { prepareRunSetup } from './attempt-setup';
import { abortable, takeStop } from './abortable';
import type { AttemptScope } from './attempt-scope';

/**
 * Step 1: the run's task root (its worktree of the project, and its tmp, cache and home), with the
 * project's files copied in and the run's variables merged (at every preparation: a retry or a
 * resume gets today's). Waits for the sandbox probe, which says who owns a sandboxed run's roots.
 */
export async function prepareTaskRoot(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const { context, active, services } = scope;
  const row = context.requireRun(active.runId);
  const task = context.ledger.tasks.get(row.task_id);
  const project = task ? context.ledger.projects.get(task.projectId) : undefined;
  if (!task || !project) {
    throw new OperatorError({ code: 'not_found', message: 'The run’s task or project was removed from the console.' });
  }
  scope.task = task;
  scope.projectId = project.id;
  const probe = await abortable(services.sandboxProbe.ready(), signal);
  scope.sandbox = probe;
  // A sandboxed run's writable roots belong to the sandbox's user (nobody, when the console is root).
  const owner = active.admission.environmentKind === 'sandboxed' ? (probe?.setup?.user ?? null) : null;
  scope.owner = owner;
  const tools = await abortable(services.workspace.toolsFor(active.admission, 'read'), signal);
  // Finishes despite a Stop: the task root is made whole even if a Stop comes meanwhile (half a
  // worktree is worse than one the operator can delete), and then the Stop is taken.
  const taskRoot = await makeTaskRoot({ dataDir: context.options.dataDir, runId: active.runId, project, owner, tools });
  scope.taskRoot = taskRoot;
  context.ledger.runs.update(active.runId, { taskRoot: taskRoot.root, cwd: taskRoot.view, baseRevision: taskRoot.baseRevision });
  // Landing's default target: the branch the run started from.
  context.ledger.runs.recordBaseBranch(active.runId, taskRoot.baseBranch);
  takeStop(signal);
  // Finishes despite a Stop too (files half copied into the view are worse than all of them), then the Stop is taken.
  scope.setup = await prepareRunSetup(context, active, { projectId: project.id, taskId: task.id, taskRoot, owner });
  takeStop(signal);
}
