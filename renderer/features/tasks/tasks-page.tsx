import { useEffect, useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { Project, Task } from '../../../shared/entities';
import { actionPath } from '../../../shared/routes';
import { useUiStore } from '../../state/ui-store';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { formatFullTimestamp, formatTimestamp, pluralize } from '../../ui/format';
import { useNow } from '../../ui/use-now';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { runStatusLabel } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { useAgents } from '../agents/use-agents';
import { GitTag } from '../projects/project-tags';
import { useProjects } from '../projects/use-projects';
import { importSummary, type ImportResult } from './import-summary';
import { newTaskSearchParam } from './new-task-route';
import { RunTaskDialog } from './run-task-dialog';
import { TaskFormDialog } from './task-form-dialog';
import { chooseTasksProject, promptPreview } from './tasks-project';
import { TaskVariablesDialog } from './task-variables-dialog';
import { useImportTasks, useSetTaskArchived, useTasks } from './use-tasks';

type TaskDialog = { kind: 'new' } | { kind: 'edit'; task: Task } | { kind: 'run'; task: Task } | { kind: 'variables'; task: Task } | null;

function TaskRow({ task, onRun, onEdit, onVariables }: { task: Task; onRun: () => void; onEdit: () => void; onVariables: () => void }) {
  const setArchived = useSetTaskArchived();
  const archiving = useSingleSubmit();
  // For saying whether a time was today: the time this was shown, not a ticking clock.
  const now = useNow(false);
  return (
    <li className={`item-list__row task-row${task.archived ? ' task-row--archived' : ''}`}>
      <div className="item-list__main">
        <div className="item-list__line">
          <span className="item-list__name">{task.title}</span>
          {task.archived ? <span className="tag">archived</span> : null}
        </div>
        {task.prompt.trim() ? <p className="item-list__detail">{promptPreview(task.prompt)}</p> : null}
        {task.planPath || task.reviewPath ? (
          <p className="item-list__meta">
            {task.planPath ? (
              <span>
                Plan <code>{task.planPath}</code>
              </span>
            ) : null}
            {task.reviewPath ? (
              <span>
                Review <code>{task.reviewPath}</code>
              </span>
            ) : null}
          </p>
        ) : null}
        {setArchived.isError ? (
          <ErrorAlert error={setArchived.error} prefix={task.archived ? 'Could not unarchive the task.' : 'Could not archive the task.'} />
        ) : null}
      </div>
      <div className="item-list__aside">
        {task.latestRun ? (
          <Link
            href={`/runs/${encodeURIComponent(task.latestRun.id)}`}
            className="latest-run"
            aria-label={`Latest run of ${task.title}: ${runStatusLabel(task.latestRun.status)}`}
          >
            <StatusBadge status={task.latestRun.status} />
          </Link>
        ) : (
          <span className="muted">Never run</span>
        )}
        <time dateTime={task.createdAt} title={`Created ${formatFullTimestamp(task.createdAt)}`}>
          {formatTimestamp(task.createdAt, now)}
        </time>
      </div>
      <div className="item-list__actions">
        {task.archived ? null : (
          <button type="button" className="button button--small button--primary" aria-label={`Run ${task.title}`} onClick={onRun}>
            Run
          </button>
        )}
        {task.latestRun ? (
          <Link
            href={actionPath({ kind: 'task-compare', taskId: task.id })}
            className="button button--small"
            aria-label={`Compare runs of ${task.title}`}
          >
            Compare runs
          </Link>
        ) : null}
        <button type="button" className="button button--small" aria-label={`Edit ${task.title}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="button button--small" aria-label={`Variables of ${task.title}`} onClick={onVariables}>
          Variables
        </button>
        <button
          type="button"
          className="button button--small"
          aria-label={`${task.archived ? 'Unarchive' : 'Archive'} ${task.title}`}
          aria-disabled={archiving.pending || undefined}
          onClick={() => archiving.submit(() => setArchived.mutateAsync({ taskId: task.id, archived: !task.archived }))}
        >
          {task.archived ? 'Unarchive' : 'Archive'}
        </button>
      </div>
    </li>
  );
}

function TaskList({
  project,
  includeArchived,
  onDialog,
}: {
  project: Project;
  includeArchived: boolean;
  onDialog: (dialog: TaskDialog) => void;
}) {
  const tasks = useTasks(project.id, includeArchived);

  if (tasks.isPending) return <Loading what="tasks" />;
  if (tasks.isError) return <QueryError what="tasks" error={tasks.error} onRetry={() => void tasks.refetch()} />;
  if (tasks.data.length === 0) {
    return (
      <EmptyState
        title={includeArchived ? `No tasks in ${project.name}` : `No tasks in ${project.name} yet`}
        action={
          <button type="button" className="button button--primary" onClick={() => onDialog({ kind: 'new' })}>
            Create the first task
          </button>
        }
      >
        <p>
          A task says what an agent should do: a title, a prompt, and optionally a plan and a review file from the project.
          Create one here, or import the PLAN-*.md and CODE_REVIEW-*.md pairs the project keeps under agent-task/.
        </p>
      </EmptyState>
    );
  }

  const archivedCount = tasks.data.filter((task) => task.archived).length;
  return (
    <>
      <p className="list-summary">
        {pluralize(tasks.data.length - archivedCount, 'task')}
        {includeArchived ? `, ${archivedCount} archived` : ''}
      </p>
      <ul className="item-list task-list" aria-label={`Tasks in ${project.name}`}>
        {tasks.data.map((task) => (
          <TaskRow
            key={task.id}
            task={task}
            onRun={() => onDialog({ kind: 'run', task })}
            onEdit={() => onDialog({ kind: 'edit', task })}
            onVariables={() => onDialog({ kind: 'variables', task })}
          />
        ))}
      </ul>
    </>
  );
}

function ImportResultPanel({ result, onDismiss }: { result: ImportResult; onDismiss: () => void }) {
  const summary = importSummary(result);
  return (
    <div className="import-result">
      <div className="import-result__header">
        <p className="import-result__headline">{summary.headline}</p>
        <button type="button" className="button button--small button--quiet" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      {summary.details.map((line) => (
        <p key={line}>{line}</p>
      ))}
      {result.unpaired.length > 0 ? (
        <ul className="import-result__unpaired" aria-label="Files that could not be paired">
          {result.unpaired.map((file) => (
            <li key={file.path}>
              <code>{file.path}</code> — {file.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ProjectTasks({ project, newRequested, onNewRequestSeen }: { project: Project; newRequested: boolean; onNewRequestSeen: () => void }) {
  const showArchived = useUiStore((state) => state.showArchivedTasks);
  const setShowArchived = useUiStore((state) => state.setShowArchivedTasks);
  const [dialog, setDialog] = useState<TaskDialog>(null);
  const importTasks = useImportTasks();
  const importing = useSingleSubmit();
  const toggleId = useId();
  // Loaded ahead, so a Run dialog opens with its agent list ready.
  useAgents();

  // The N shortcut and the palette's New task ask through the route, from whichever page they were on.
  useEffect(() => {
    if (!newRequested) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the request arrives in the URL (another page's N or palette); opening the dialog answers it, once.
    setDialog({ kind: 'new' });
    onNewRequestSeen();
  }, [newRequested, onNewRequestSeen]);

  return (
    <>
      <div className="task-toolbar">
        <button type="button" className="button button--primary" onClick={() => setDialog({ kind: 'new' })}>
          New task
        </button>
        <button
          type="button"
          className="button"
          aria-disabled={importing.pending || undefined}
          onClick={() => importing.submit(() => importTasks.mutateAsync(project.id))}
        >
          Import from agent-task/
        </button>
        {importTasks.isPending ? <span className="muted">Looking for PLAN and CODE_REVIEW pairs…</span> : null}
        <label className="toggle task-toolbar__end" htmlFor={toggleId}>
          <input id={toggleId} type="checkbox" checked={showArchived} onChange={(event) => setShowArchived(event.target.checked)} />
          Show archived
        </label>
      </div>
      <div aria-live="polite" className="live-region">
        {importTasks.isSuccess ? <ImportResultPanel result={importTasks.data} onDismiss={() => importTasks.reset()} /> : null}
      </div>
      {importTasks.isError ? <ErrorAlert error={importTasks.error} prefix="Could not import tasks." /> : null}
      <TaskList project={project} includeArchived={showArchived} onDialog={setDialog} />
      {dialog?.kind === 'new' ? <TaskFormDialog project={project} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'edit' ? <TaskFormDialog project={project} task={dialog.task} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'run' ? <RunTaskDialog task={dialog.task} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'variables' ? <TaskVariablesDialog task={dialog.task} onClose={() => setDialog(null)} /> : null}
    </>
  );
}

export function TasksPage() {
  const projects = useProjects();
  const search = useSearch();
  const [, navigate] = useLocation();
  const remembered = useUiStore((state) => state.tasksProjectId);
  const remember = useUiStore((state) => state.setTasksProjectId);
  const selectId = useId();

  if (projects.isPending) {
    return (
      <Page title="Tasks">
        <Loading what="projects" />
      </Page>
    );
  }
  if (projects.isError) {
    return (
      <Page title="Tasks">
        <QueryError what="projects" error={projects.error} onRetry={() => void projects.refetch()} />
      </Page>
    );
  }
  if (projects.data.length === 0) {
    return (
      <Page title="Tasks">
        <EmptyState
          title="Add a project first"
          action={
            <Link href="/settings/projects" className="button button--primary">
              Add a project
            </Link>
          }
        >
          <p>Tasks belong to a project: a folder on this computer, usually a git repository, that agents work on.</p>
        </EmptyState>
      </Page>
    );
  }

  const params = new URLSearchParams(search);
  const fromRoute = params.get('project');
  const selectedId = chooseTasksProject(projects.data, fromRoute, remembered);
  const selected = projects.data.find((project) => project.id === selectedId) ?? projects.data[0]!;

  return (
    <Page title="Tasks" className="tasks-page">
      <div className="filter-bar">
        <div className="filter-bar__field">
          <label htmlFor={selectId}>Project</label>
          <select
            id={selectId}
            className="select"
            value={selected.id}
            onChange={(event) => {
              remember(event.target.value);
              navigate(`/tasks?project=${encodeURIComponent(event.target.value)}`, { replace: true });
            }}
          >
            {projects.data.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </select>
        </div>
        <div className="filter-bar__context">
          <GitTag isGitRepo={selected.isGitRepo} />
          <code className="muted" title={selected.path}>
            {selected.path}
          </code>
        </div>
      </div>
      <ProjectTasks
        key={selected.id}
        project={selected}
        newRequested={params.get(newTaskSearchParam) === '1'}
        onNewRequestSeen={() => {
          // Dropped from the route once seen, so Back or a reload does not open the dialog again.
          params.delete(newTaskSearchParam);
          const rest = params.toString();
          navigate(rest ? `/tasks?${rest}` : '/tasks', { replace: true });
        }}
      />
    </Page>
  );
}
