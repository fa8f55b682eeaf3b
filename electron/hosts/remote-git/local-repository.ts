import { promises as fs } from 'node:fs';
import path from 'node:path';
import { runGit, type GitCommandOptions, type GitCommandResult } from '../../git/git-command';
import { hardenedGitSettings, hardenedGitVariables } from '../../git/hardened-git';

/**
 * The operator's side of the code round trip: the project, or a run's local repository (which the
 * console wrote and no agent ever ran in, since the run's agent is on the host). Git runs there with
 * hardened-git's settings and variables all the same: no global or system config, no hooks, so the
 * round trip behaves the same on every operator's machine and a pack from the host is checked by the
 * same rules wherever it lands.
 */

const hardened = hardenedGitSettings.flatMap((setting) => ['-c', setting]);

export function localGit(gitDir: string, args: string[], options: GitCommandOptions & { objects?: { directory: string; alternates: string[] } } = {}): Promise<GitCommandResult> {
  const { objects, ...rest } = options;
  return runGit([...hardened, ...args], {
    ...rest,
    env: {
      ...hardenedGitVariables,
      GIT_DIR: gitDir,
      ...(objects ? { GIT_OBJECT_DIRECTORY: objects.directory, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.alternates.join(':') } : {}),
      ...rest.env,
    },
  });
}

export interface LocalRepository {
  /** The git dir (the common one, for a worktree). */
  gitDir: string;
  objectsDir: string;
  objectFormat: 'sha1' | 'sha256';
}

/** The git dir and object folder of a local repository given as its folder or its git dir. */
export async function openLocalRepository(repository: string): Promise<LocalRepository> {
  const common = (await runGit([...hardened, 'rev-parse', '--git-common-dir'], { cwd: repository, env: { ...hardenedGitVariables } })).stdout.trim();
  const gitDir = await fs.realpath(path.resolve(repository, common));
  const format = (await localGit(gitDir, ['rev-parse', '--show-object-format'])).stdout.trim();
  return { gitDir, objectsDir: path.join(gitDir, 'objects'), objectFormat: format === 'sha256' ? 'sha256' : 'sha1' };
}

const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export function isObjectId(value: string): boolean {
  return objectName.test(value);
}

/** Which of `ids` the repository holds as commits. */
export async function commitsHeld(repository: LocalRepository, ids: string[], objects?: { directory: string; alternates: string[] }): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const answer = await localGit(repository.gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${ids.join('\n')}\n`, ...(objects ? { objects } : {}) });
  const held = new Set<string>();
  for (const line of answer.stdout.split('\n')) {
    const [id, type] = line.split(' ');
    if (id && type === 'commit') held.add(id);
  }
  return held;
}
