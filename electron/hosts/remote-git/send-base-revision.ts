import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asGitFailure } from '../../git/git-errors';
import { runRemoteScript, type SshHost } from '../remote-script';
import { commitsHeld, isObjectId, localGit, openLocalRepository } from './local-repository';
import { remoteGitFailure, remoteGitRefusal } from './remote-git-failure';
import { remoteGitScript } from './remote-git-script';
import { withStoreTurn } from './store-turns';

/**
 * The base revision to the host (issue 28) as a `git bundle` of only what the host lacks. The host
 * keeps one object store per project in the console's remote folder (`remoteStore`, a bare
 * repository the run's repository borrows from), with a ref for every base it received: the console
 * asks which bases it holds, bundles `base ^held...` (nothing at all when the base is one of them or
 * older), and the host unbundles that into the store and makes the run's repository there, its branch
 * at the base and checked out. A second run of the same project sends only the commits since.
 */

export interface SendBaseRevisionInput extends SshHost {
  /** The project (or any local repository holding the base): the operator's, so trusted. */
  localRepository: string;
  baseRevision: string;
  /** Where the run's repository goes on the host; a path relative to the remote user's home, or absolute. Must not exist. */
  remoteRepository: string;
  /** The project's object store on the host (remoteStoreFor). */
  remoteStore: string;
  /** The branch the run's repository checks out at the base; the agent commits on it. */
  branch?: string;
  timeoutMs?: number;
}

export interface SentBaseRevision {
  /** The commit the host checked out. */
  baseRevision: string;
  /** What crossed the wire: 0 when the host held the base already. */
  bundleBytes: number;
}

/** The branch the run's repository on a host checks out, unless told otherwise. */
export const remoteRunBranch = 'operator-console/run';

/** The folder of the projects' object stores on a host, in the console's folder there (`~/.operator-console`, absolute or relative to the remote home). */
export function remoteStoresFolder(consoleFolder: string): string {
  return `${consoleFolder.replace(/\/+$/, '')}/git-stores`;
}

/** The project's object store on a host: `<project id>.git` in remoteStoresFolder. */
export function remoteStoreFor(consoleFolder: string, projectId: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(projectId)) throw new Error(`not a project id: ${projectId}`);
  return `${remoteStoresFolder(consoleFolder)}/${projectId}.git`;
}

const defaultTimeoutMs = 10 * 60_000;
/** The store's answer: a line per base it holds, at most 500 of them. */
const maxStateBytes = 64 * 1024;

/** The time limit on the host, in whole seconds; the console's own limit on ssh is a little longer, so the host stops first. */
export function hostLimitSeconds(timeoutMs: number): string {
  return String(Math.max(1, Math.ceil(timeoutMs / 1000)));
}

export function sendBaseRevision(input: SendBaseRevisionInput): Promise<SentBaseRevision> {
  // The store is not removed while a base goes into it (store-turns.ts).
  return withStoreTurn(input.host, input.remoteStore, () => sendBaseRevisionNow(input));
}

async function sendBaseRevisionNow(input: SendBaseRevisionInput): Promise<SentBaseRevision> {
  const timeoutMs = input.timeoutMs ?? defaultTimeoutMs;
  const branch = input.branch ?? remoteRunBranch;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(branch) || branch.includes('..') || branch.endsWith('.lock') || branch.endsWith('/')) {
    throw new Error(`not a branch name the console makes: ${branch}`);
  }
  const local = await openLocalRepository(input.localRepository);
  const base = await localGit(local.gitDir, ['rev-parse', '--verify', '--end-of-options', `${input.baseRevision}^{commit}`])
    .then((result) => result.stdout.trim())
    .catch((error: unknown) => {
      throw asGitFailure(error, { repository: input.localRepository, revision: input.baseRevision, doing: 'find the commit the run starts from' });
    });
  const sshHost = { ssh: input.ssh, host: input.host };
  const limit = hostLimitSeconds(timeoutMs);

  const state = await runRemoteScript(sshHost, { script: remoteGitScript, args: [limit, 'state', input.remoteStore, local.objectFormat], timeoutMs: timeoutMs + 5_000, maxOutputBytes: maxStateBytes });
  if (state.truncated) throw remoteGitRefusal('remote_git_failed', `${input.host} answered far more than the list of bases its store holds.`);
  if (state.exitCode !== 0 || state.timedOut) throw remoteGitFailure(input.host, 'open the project’s object store', state, timeoutMs);
  const said = state.stdout
    .toString('utf8')
    .split('\n')
    .map((line) => /^have ([0-9a-f]+)$/.exec(line)?.[1])
    .filter((id): id is string => id !== undefined && isObjectId(id));
  // Only what this repository has can stand for "the host has it": a base another clone sent is not known here.
  const held = [...(await commitsHeld(local, said))];

  const bundle = (await baseReachedFrom(local.gitDir, base, held)) ? Buffer.alloc(0) : await bundleLacking(local.objectsDir, local.objectFormat, base, held);
  const received = await runRemoteScript(sshHost, {
    script: remoteGitScript,
    args: [limit, 'receive', input.remoteStore, local.objectFormat, input.remoteRepository, base, branch],
    stdin: bundle,
    timeoutMs: timeoutMs + 5_000,
    maxOutputBytes: maxStateBytes,
  });
  if (received.exitCode !== 0 || received.timedOut) throw remoteGitFailure(input.host, 'check the run’s base revision out', received, timeoutMs);
  if (received.stdout.toString('utf8').trim() !== `ready ${base}`) {
    throw remoteGitRefusal('remote_git_failed', `${input.host} did not say it checked ${base.slice(0, 12)} out.`);
  }
  return { baseRevision: base, bundleBytes: bundle.length };
}

/** Whether the host has the base already: it is one of the held commits or an ancestor of one. */
async function baseReachedFrom(gitDir: string, base: string, held: string[]): Promise<boolean> {
  for (const commit of held) {
    const answer = await localGit(gitDir, ['merge-base', '--is-ancestor', base, commit], { okExitCodes: [0, 1] });
    if (answer.exitCode === 0) return true;
  }
  return false;
}

/**
 * `git bundle` of the base less what the host holds. A bundle names a ref, so it is made in a
 * throwaway repository of the console's that borrows the local one's objects: nothing is written to
 * the project.
 */
async function bundleLacking(objectsDir: string, objectFormat: 'sha1' | 'sha256', base: string, held: string[]): Promise<Buffer> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'operator-console-bundle-'));
  try {
    const scratchGit = path.join(scratch, 'git');
    await localGit(scratchGit, ['init', '--quiet', '--bare', '--template=', `--object-format=${objectFormat}`]);
    await fs.mkdir(path.join(scratchGit, 'objects', 'info'), { recursive: true });
    await fs.writeFile(path.join(scratchGit, 'objects', 'info', 'alternates'), `${objectsDir}\n`);
    await localGit(scratchGit, ['update-ref', 'refs/operator-console/base', base]);
    const file = path.join(scratch, 'base.bundle');
    await localGit(scratchGit, ['bundle', 'create', '--quiet', file, 'refs/operator-console/base', ...held.map((commit) => `^${commit}`)], { timeoutMs: defaultTimeoutMs });
    return await fs.readFile(file);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
