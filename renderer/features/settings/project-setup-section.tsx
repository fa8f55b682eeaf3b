import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { Project, ProjectSetup } from '../../../shared/entities';
import { copyPatternProblem } from '../../../shared/project-setup-rules';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { Loading, QueryError } from '../../ui/query-error';
import { focusRouteTarget } from '../../ui/route-focus';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { GitTag } from '../projects/project-tags';
import { useProjectSetup, useUpdateProjectSetup } from '../projects/use-project-setup';
import { useProjects } from '../projects/use-projects';
import { VariablesEditor } from '../projects/variables-editor';

/** What an action link may name to focus (shared/routes.ts `project-setup`). */
export type ProjectSetupField = 'setup-command' | 'copy-patterns' | 'variables';

export function isProjectSetupField(value: string | null): value is ProjectSetupField {
  return value === 'setup-command' || value === 'copy-patterns' || value === 'variables';
}

function BackToProjects() {
  return (
    <Link href="/settings/projects" className="button">
      Back to the projects
    </Link>
  );
}

/** Settings → Projects → the project: what each new run of it gets before its agent starts. */
export function ProjectSetupSection({ projectId, field }: { projectId: string; field: ProjectSetupField | null }) {
  const projects = useProjects();
  const setup = useProjectSetup(projectId);
  if (projects.isPending) return <Loading what="the project" />;
  if (projects.isError) return <QueryError what="projects" error={projects.error} onRetry={() => void projects.refetch()} />;
  const project = projects.data.find((candidate) => candidate.id === projectId);
  if (!project) {
    return (
      <EmptyState title="This project is not in the console" action={<BackToProjects />}>
        <p>
          No project has the id <code>{projectId}</code>. It may have been removed.
        </p>
      </EmptyState>
    );
  }
  return (
    <section className="settings-section project-setup" aria-labelledby="project-setup-heading">
      <div className="project-setup__header">
        <h2 id="project-setup-heading" className="section-title">
          Setup of {project.name}
        </h2>
        <GitTag isGitRepo={project.isGitRepo} />
        <BackToProjects />
      </div>
      <p className="section-intro">
        What each new run of <code>{project.path}</code> gets in its view before the agent starts: files the repository does not hold
        (git ignores them), a setup command such as <code>npm ci</code>, and environment variables.
      </p>
      {setup.isPending ? <Loading what="the project’s setup" /> : null}
      {setup.isError ? <QueryError what="the project’s setup" error={setup.error} onRetry={() => void setup.refetch()} /> : null}
      {setup.data ? <ProjectSetupForm key={projectId} project={project} setup={setup.data} field={field} /> : null}
      <VariablesEditor layer="project" ownerId={project.id} ownerName={project.name} focus={field === 'variables'} />
    </section>
  );
}

function ProjectSetupForm({ project, setup, field }: { project: Project; setup: ProjectSetup; field: ProjectSetupField | null }) {
  const [patterns, setPatterns] = useState(setup.copyPatterns.join('\n'));
  const [command, setCommand] = useState(setup.setupCommand ?? '');
  const [patternProblem, setPatternProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState<string | null>(null);
  const update = useUpdateProjectSetup();
  const submission = useSingleSubmit();
  const patternsInput = useRef<HTMLTextAreaElement>(null);
  const commandInput = useRef<HTMLTextAreaElement>(null);

  // An action link (a failed setup's notice) lands on the field that fixes it, focused.
  useEffect(() => {
    const target = field === 'setup-command' ? commandInput.current : field === 'copy-patterns' ? patternsInput.current : null;
    focusRouteTarget(target);
  }, [field]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    submission.submit(() => {
      setSaved(null);
      const lines = patterns
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const problem = lines.map(copyPatternProblem).find((found) => found !== null);
      if (problem) {
        setPatternProblem(problem);
        patternsInput.current?.focus();
        return;
      }
      setPatternProblem(undefined);
      return update.mutateAsync({ projectId: project.id, copyPatterns: lines, setupCommand: command }).then((next) => {
        setPatterns(next.copyPatterns.join('\n'));
        setCommand(next.setupCommand ?? '');
        setSaved(`Saved the setup of ${project.name}. New runs get it.`);
      });
    });
  };

  return (
    <form className="form-card" onSubmit={submit} noValidate aria-label={`Setup of ${project.name}`}>
      <FormField
        label="Files to copy into each run"
        problem={patternProblem}
        hint={
          <>
            One pattern a line, relative to the project folder, e.g. <code>.env</code>, <code>.env.local</code>, <code>config/*.local.json</code>.
            Copied into each run’s view when it is prepared. A link out of the project and anything in <code>.git</code> are never copied.
          </>
        }
      >
        {(control) => (
          <textarea
            {...control}
            ref={patternsInput}
            className="input input--mono textarea"
            rows={4}
            value={patterns}
            onChange={(event) => {
              setPatterns(event.target.value);
              setPatternProblem(undefined);
              setSaved(null);
            }}
            spellCheck={false}
          />
        )}
      </FormField>
      <FormField
        label="Setup command"
        hint={
          <>
            Runs with <code>sh</code> in each new run’s view before the agent starts, inside the run’s sandbox and network rules (for
            example <code>npm ci</code>). If it fails, the run stops with <code>setup_failed</code> and the agent does not start.
          </>
        }
      >
        {(control) => (
          <textarea
            {...control}
            ref={commandInput}
            className="input input--mono textarea"
            rows={2}
            value={command}
            onChange={(event) => {
              setCommand(event.target.value);
              setSaved(null);
            }}
            spellCheck={false}
          />
        )}
      </FormField>
      <div className="form-card__actions">
        <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
          Save setup
        </button>
        {submission.pending ? <span className="form-card__progress">Saving…</span> : null}
        <p className="form-success" aria-live="polite">
          {saved}
        </p>
      </div>
      {update.isError ? <ErrorAlert error={update.error} prefix="Could not save the setup." /> : null}
    </form>
  );
}
