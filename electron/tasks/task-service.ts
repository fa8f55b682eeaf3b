import type { Task } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { EventHub } from '../events/event-hub';
import { findArtifactPairs } from './artifact-import';

export interface TaskDraft {
  projectId: string;
  title: string;
  prompt: string;
  planPath?: string | null | undefined;
  reviewPath?: string | null | undefined;
}

export interface ImportResult {
  imported: Task[];
  alreadyImported: number;
  unpaired: Array<{ path: string; reason: string }>;
}

/** Tasks: what to do in a project, typed in the UI or imported from the project's plan/review pairs. */
export class TaskService {
  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
  ) {}

  list(filter: { projectId?: string | undefined; includeArchived?: boolean | undefined } = {}): Task[] {
    return this.ledger.tasks.list(filter);
  }

  get(taskId: string): Task {
    const task = this.ledger.tasks.get(taskId);
    if (!task) throw new OperatorError({ code: 'not_found', message: 'That task is no longer in the console.', actionUrl: actionRoute({ kind: 'tasks' }) });
    return task;
  }

  create(draft: TaskDraft): Task {
    this.requireProject(draft.projectId);
    const task = this.ledger.tasks.insert({
      id: newId('tsk'),
      projectId: draft.projectId,
      title: draft.title,
      prompt: draft.prompt,
      planPath: draft.planPath ?? null,
      reviewPath: draft.reviewPath ?? null,
      createdAt: this.now(),
    });
    this.announce();
    return task;
  }

  update(
    taskId: string,
    changes: {
      title?: string | undefined;
      prompt?: string | undefined;
      planPath?: string | null | undefined;
      reviewPath?: string | null | undefined;
    },
  ): Task {
    this.get(taskId);
    const task = this.ledger.tasks.update(taskId, changes, this.now())!;
    this.announce();
    return task;
  }

  setArchived(taskId: string, archived: boolean): Task {
    this.get(taskId);
    const task = this.ledger.tasks.setArchived(taskId, archived, this.now())!;
    this.announce();
    return task;
  }

  /** One task per `agent-task/**` PLAN + CODE_REVIEW pair not imported before. */
  async importArtifacts(projectId: string): Promise<ImportResult> {
    const project = this.requireProject(projectId);
    const scan = await findArtifactPairs(project.path);
    const known = this.ledger.tasks.planPaths(projectId);
    const fresh = scan.pairs.filter((pair) => !known.has(pair.planPath));
    const at = this.now();
    const imported = this.ledger.tasks.insertMany(
      fresh.map((pair, index) => ({
        id: newId('tsk'),
        projectId,
        title: pair.title,
        prompt: `Implement the plan in ${pair.planPath}.`,
        planPath: pair.planPath,
        reviewPath: pair.reviewPath,
        // Distinct times keep the list in the artifacts' order.
        createdAt: at + index,
      })),
    );
    if (imported.length) this.announce();
    return { imported, alreadyImported: scan.pairs.length - fresh.length, unpaired: scan.unpaired };
  }

  private requireProject(projectId: string) {
    const project = this.ledger.projects.get(projectId);
    if (!project) {
      throw new OperatorError({
        code: 'not_found',
        message: 'That project is no longer in the console. Add it again in Settings → Projects.',
        actionUrl: actionRoute({ kind: 'settings-projects' }),
      });
    }
    return project;
  }

  private announce(): void {
    this.events.emit('tasksChanged', {});
  }
}
