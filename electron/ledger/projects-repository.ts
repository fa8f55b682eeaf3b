import type { Project } from '../../shared/entities';
import type { LedgerDb } from './database-handle';
import { isoNow } from './ids';

interface ProjectRow {
  id: string;
  name: string;
  path: string;
  is_git_repo: number;
  created_at: number;
}

function toProject(row: ProjectRow): Project {
  return { id: row.id, name: row.name, path: row.path, isGitRepo: row.is_git_repo === 1, createdAt: isoNow(row.created_at) };
}

export class ProjectsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): Project[] {
    return (this.db.prepare('SELECT * FROM projects ORDER BY name COLLATE NOCASE, created_at').all() as ProjectRow[]).map(toProject);
  }

  get(id: string): Project | undefined {
    const row = this.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
    return row && toProject(row);
  }

  findByPath(path: string): Project | undefined {
    const row = this.db.prepare('SELECT * FROM projects WHERE path = ?').get(path) as ProjectRow | undefined;
    return row && toProject(row);
  }

  insert(project: { id: string; name: string; path: string; isGitRepo: boolean; createdAt: number }): Project {
    this.db
      .prepare('INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(project.id, project.name, project.path, project.isGitRepo ? 1 : 0, project.createdAt);
    return this.get(project.id)!;
  }

  /** Removes the project with its tasks and run history (the files on disk are not touched). */
  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM projects WHERE id = ?').run(id).changes === 1;
  }
}
