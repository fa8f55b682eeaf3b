import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { Project } from '../../../shared/entities';
import { useUiStore } from '../../state/ui-store';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { operatorMessage } from '../../ui/error-message';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { GitTag } from '../projects/project-tags';
import { useAddProject, useProjects, useRemoveProject } from '../projects/use-projects';
import { FolderBrowserDialog } from './folder-browser-dialog';

export function ProjectsSection() {
  // Dialogs belong to this section: leaving it (Back, an action link) must not leave one to reopen later.
  useEffect(
    () => () => {
      const { setFolderBrowserOpen, setProjectPendingRemoval } = useUiStore.getState();
      setFolderBrowserOpen(false);
      setProjectPendingRemoval(null);
    },
    [],
  );
  return (
    <section className="settings-section" aria-labelledby="settings-projects-heading">
      <h2 id="settings-projects-heading" className="section-title">
        Projects
      </h2>
      <p className="section-intro">
        A project is a folder on this computer, usually a git repository, where agents do tasks. Runs never change
        it directly: each run works in its own worktree (or a copy of a plain folder).
      </p>
      <AddProjectForm />
      <ProjectList />
    </section>
  );
}

function AddProjectForm() {
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const folderBrowserOpen = useUiStore((state) => state.folderBrowserOpen);
  const setFolderBrowserOpen = useUiStore((state) => state.setFolderBrowserOpen);
  const addProject = useAddProject();
  const submission = useSingleSubmit();
  const pathInput = useRef<HTMLInputElement>(null);
  const ids = { heading: useId(), path: useId(), name: useId(), nameHint: useId(), pathHint: useId() };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      setAdded(null);
      const folder = path.trim();
      if (!folder) {
        setProblem('Type the path of a project folder, or choose one with Browse….');
        pathInput.current?.focus();
        return;
      }
      setProblem(null);
      const label = name.trim();
      return addProject.mutateAsync(label ? { path: folder, name: label } : { path: folder }).then(
        (project) => {
          setPath('');
          setName('');
          setAdded(`Added ${project.name}.`);
        },
        (error: unknown) => {
          setProblem(operatorMessage(error));
          pathInput.current?.focus();
        },
      );
    });
  };

  return (
    <>
      <form className="form-card" onSubmit={submit} noValidate aria-labelledby={ids.heading}>
        <h3 id={ids.heading} className="form-card__title">
          Add a project
        </h3>
        <div className="field">
          <label htmlFor={ids.path}>Project folder</label>
          <div className="field__row">
            <input
              ref={pathInput}
              id={ids.path}
              className="input input--mono"
              type="text"
              name="path"
              value={path}
              onChange={(event) => {
                setPath(event.target.value);
                setProblem(null);
              }}
              placeholder="/path/to/repository"
              autoComplete="off"
              spellCheck={false}
              aria-describedby={ids.pathHint}
              aria-invalid={problem ? true : undefined}
            />
            <button type="button" className="button" onClick={() => setFolderBrowserOpen(true)}>
              Browse…
            </button>
          </div>
          <p id={ids.pathHint} className="field__hint">
            A folder on the machine the console runs on.
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input
            id={ids.name}
            className="input"
            type="text"
            name="name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            autoComplete="off"
            aria-describedby={ids.nameHint}
          />
          <p id={ids.nameHint} className="field__hint">
            Optional. Without one, the project takes the folder’s name.
          </p>
        </div>
        <div className="form-card__actions">
          <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
            Add project
          </button>
          {submission.pending ? <span className="form-card__progress">Adding…</span> : null}
        </div>
        {problem ? (
          <p className="form-error" role="alert">
            {problem}
          </p>
        ) : null}
        <p className="form-success" aria-live="polite">
          {added}
        </p>
      </form>
      {folderBrowserOpen ? (
        <FolderBrowserDialog
          startPath={path.trim() || undefined}
          onClose={() => setFolderBrowserOpen(false)}
          onChoose={(chosen) => {
            setPath(chosen);
            setProblem(null);
            setFolderBrowserOpen(false);
          }}
        />
      ) : null}
    </>
  );
}

function ProjectList() {
  const projects = useProjects();
  const pendingRemoval = useUiStore((state) => state.projectPendingRemoval);
  const setPendingRemoval = useUiStore((state) => state.setProjectPendingRemoval);

  if (projects.isPending) return <Loading what="projects" />;
  if (projects.isError) return <QueryError what="projects" error={projects.error} onRetry={() => void projects.refetch()} />;

  const list = projects.data;
  const removing = list.find((project) => project.id === pendingRemoval);

  if (list.length === 0) {
    return (
      <EmptyState title="No projects yet">
        <p>Add the folder of a repository you want agents to work on: type its path above or pick it with Browse….</p>
      </EmptyState>
    );
  }

  return (
    <>
      <ul className="item-list project-list" aria-label="Projects">
        {list.map((project) => (
          <li key={project.id} className="item-list__row">
            <div className="item-list__main">
              <div className="item-list__line">
                <span className="item-list__name">{project.name}</span>
                <GitTag isGitRepo={project.isGitRepo} />
              </div>
              <code className="item-list__path" title={project.path}>
                {project.path}
              </code>
            </div>
            <div className="item-list__actions">
              <Link href={`/settings/projects/${encodeURIComponent(project.id)}`} className="button button--small" aria-label={`Setup of ${project.name}`}>
                Setup
              </Link>
              <button
                type="button"
                className="button button--small"
                aria-label={`Remove ${project.name}`}
                onClick={() => setPendingRemoval(project.id)}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
      {removing ? <RemoveProjectDialog project={removing} onClose={() => setPendingRemoval(null)} /> : null}
    </>
  );
}

export function removeProjectQuestion(name: string): string {
  return `Remove ${name} from the console? Its tasks and run history are removed from the console; files on disk are not touched.`;
}

function RemoveProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const removeProject = useRemoveProject();
  return (
    <ConfirmDialog
      title="Remove project"
      description={<p>{removeProjectQuestion(project.name)}</p>}
      confirmLabel="Remove"
      error={removeProject.error}
      onConfirm={() => removeProject.mutateAsync(project.id).then(onClose)}
      onClose={onClose}
    >
      <p className="modal__detail">
        <code>{project.path}</code>
      </p>
    </ConfirmDialog>
  );
}
