import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Project } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { EventHub } from '../events/event-hub';
import type { Logger } from '../platform/log';
import { isGitRepo } from './directory-browser';

/** Projects: local directories where tasks are done. */
export class ProjectService {
  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Project[] {
    return this.ledger.projects.list();
  }

  add(input: { path: string; name?: string | undefined }): Project {
    const dir = resolveProjectDir(input.path);
    const existing = this.ledger.projects.findByPath(dir);
    if (existing) {
      throw new OperatorError({
        code: 'project_exists',
        message: `${dir} is already a project (“${existing.name}”).`,
        actionUrl: '#/settings/projects',
      });
    }
    const project = this.ledger.projects.insert({
      id: newId('prj'),
      name: input.name ?? path.basename(dir),
      path: dir,
      isGitRepo: isGitRepo(dir),
      createdAt: this.now(),
    });
    this.events.emit('projectsChanged', {});
    return project;
  }

  /**
   * Removes the project with its tasks and runs' history. The runs' output goes first, on the ledger
   * writer's thread in slices, and its room goes back to the disk (ledger-space.ts), as deleting a run does.
   */
  async remove(projectId: string): Promise<{ projectId: string }> {
    if (!this.ledger.projects.get(projectId)) throw projectGone();
    await this.ledger.space.deleteOutput(this.ledger.runs.idsOfProject(projectId), this.log);
    if (!this.ledger.projects.remove(projectId)) throw projectGone();
    this.events.emit('projectsChanged', {});
    await this.ledger.space.reclaimLogged(this.log);
    return { projectId };
  }
}

function projectGone(): OperatorError {
  return new OperatorError({ code: 'not_found', message: 'That project is no longer in the console.' });
}

/** The canonical folder for a typed path: absolute, symlinks resolved, and an existing directory. */
function resolveProjectDir(typed: string): string {
  const absolute = path.resolve(typed);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new OperatorError({ code: 'path_not_found', message: `${absolute} does not exist. Check the path and try again.` });
  }
  if (!statSync(real).isDirectory()) {
    throw new OperatorError({ code: 'not_a_directory', message: `${real} is a file, not a folder. Choose a folder.` });
  }
  return real;
}
