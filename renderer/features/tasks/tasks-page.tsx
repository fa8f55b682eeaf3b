import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { Project } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { useUiStore } from '../../state/ui-store';
import { EmptyState } from '../../ui/empty-state';
import { formatFullTimestamp, formatTimestamp, pluralize } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { runStatusLabel } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { GitTag } from '../projects/project-tags';
import { useProjects } from '../projects/use-projects';
import { chooseTasksProject, promptPreview } from './tasks-project';

function TaskList({ project }: { project: Project }) {
  const client = useOperatorClient();
  const tasks = useQuery({
    queryKey: queryKeys.tasks(project.id),
    queryFn: () => client.listTasks({ projectId: project.id }),
  });
  const now = Date.now();

  if (tasks.isPending) return <Loading what="tasks" />;
  if (tasks.isError) return <QueryError what="tasks" error={tasks.error} onRetry={() => void tasks.refetch()} />;
  if (tasks.data.length === 0) {
    return (
      <EmptyState title={`No tasks in ${project.name} yet`}>
        <p>
          A task says what an agent should do: a title, a prompt, and optionally a plan and a review file from the project.
          Tasks you create for {project.name} are listed here, each ready to run with an agent.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      <p className="list-summary">{pluralize(tasks.data.length, 'task')}</p>
      <ul className="item-list task-list" aria-label={`Tasks in ${project.name}`}>
        {tasks.data.map((task) => (
          <li key={task.id} className="item-list__row">
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
            </div>
            <div className="item-list__aside">
              {task.latestRun ? (
                <Link
                  href={`/runs/${encodeURIComponent(task.latestRun.id)}`}
                  className="latest-run"
                  aria-label={`Latest run: ${runStatusLabel(task.latestRun.status)}`}
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
          </li>
        ))}
      </ul>
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

  const fromRoute = new URLSearchParams(search).get('project');
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
      <TaskList key={selected.id} project={selected} />
    </Page>
  );
}
