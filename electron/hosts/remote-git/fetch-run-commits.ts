import { promises as fs } from 'node:fs';
import path from 'node:path';
import { GitCommandError } from '../../git/git-command';
import { sshWords } from '../ssh-failure';
import { runRemoteScript, type SshHost } from '../remote-script';
import { commitsHeld, isObjectId, localGit, openLocalRepository, type LocalRepository } from './local-repository';
import { remoteGitFailure, remoteGitRefusal } from './remote-git-failure';
import { remoteGitScript } from './remote-git-script';
import { hostLimitSeconds } from './send-base-revision';

/**
 * The run's commits back from the host (issue 28) as one pack, made by the console's git on the host
 * from the run's repository read as data in a sandbox there (remote-git-script.ts), and streamed
 * through ssh. On this side what arrives is hostile input: it is read up to `maxPackBytes` and for at
 * most `timeoutMs` (a pack bomb or a host that never answers is stopped, not waited on), then checked
 * by `git index-pack --strict` (every object fsck-checked, every link present) into a quarantine
 * folder of its own, as git's receive-pack does. Only a pack that passes, whose tip is a commit, is
 * moved into the run's local repository and `ref` set to that tip; anything else is refused with a
 * stable reason and nothing is written there. The host's work tree comes back too, as a commit on the
 * tip (what the agent did not commit): remote-work-in-view.ts shows both in the run's local view, so
 * review, compare and landing read the run as they do a local run.
 */

export interface FetchRunCommitsInput extends SshHost {
  /** The run's repository on the host (sendBaseRevision made it). */
  remoteRepository: string;
  /** The project's object store on the host (remoteStoreFor), which the run's repository borrows from. */
  remoteStore: string;
  /** The run's local repository (its git dir), where the commits go. */
  localRepository: string;
  /** The full ref set to the run's tip there: `refs/heads/<the run's branch>`. */
  ref: string;
  /** Commits both sides hold besides the ref's current one (the run's base): the host leaves them and what they reach out. */
  haves?: string[];
  /** The most the pack may hold, and the most any file in it may inflate to (a pack bomb packs small). */
  maxPackBytes?: number;
  timeoutMs?: number;
}

const defaultMaxPackBytes = 1024 * 1024 * 1024;
const defaultTimeoutMs = 10 * 60_000;
const headerPattern = /^operator-console-pack ([0-9a-f]{40}(?:[0-9a-f]{24})?) ([0-9a-f]{40}(?:[0-9a-f]{24})?)\n/;
/** Where the run's local repository keeps the commit of the host's work tree (what the agent did not commit). */
export const remoteWorkTreeRef = 'refs/operator-console/remote-work-tree';

export interface FetchedRunCommits {
  /** The run's HEAD on the host: where `ref` now points. */
  head: string;
  /**
   * A commit of the console's on top of `head` holding the host's work tree as the agent left it
   * (kept under remoteWorkTreeRef); null when git on the host could not read the work tree whole.
   */
  workTree: string | null;
  /** What the run's local view showed before (the last work tree brought back, else the ref's commit before): where showing this one starts from. */
  shownBefore: string | null;
}

export async function fetchRunCommits(input: FetchRunCommitsInput): Promise<FetchedRunCommits> {
  if (!/^refs\/[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(input.ref) || input.ref.includes('..') || input.ref.endsWith('.lock')) throw new Error(`not a ref the console sets: ${input.ref}`);
  const maxPackBytes = input.maxPackBytes ?? defaultMaxPackBytes;
  const timeoutMs = input.timeoutMs ?? defaultTimeoutMs;
  const local = await openLocalRepository(input.localRepository);
  const current = await refValue(local, input.ref);
  const shownBefore = (await refValue(local, remoteWorkTreeRef)) ?? current;
  const haves = [...new Set([...(current ? [current] : []), ...(input.haves ?? [])])].filter(isObjectId);

  const result = await runRemoteScript(
    { ssh: input.ssh, host: input.host },
    {
      script: remoteGitScript,
      args: [hostLimitSeconds(timeoutMs), 'pack', input.remoteRepository, input.remoteStore, local.objectFormat, String(maxPackBytes), ...haves],
      timeoutMs: timeoutMs + 5_000,
      maxOutputBytes: maxPackBytes + 128,
    },
  );
  if (result.truncated) {
    throw remoteGitRefusal('remote_pack_too_large', `${input.host} sent more than ${formatBytes(maxPackBytes)} of the run’s commits, more than the console brings back; it was stopped.`);
  }
  if (result.exitCode !== 0 || result.timedOut) throw remoteGitFailure(input.host, 'pack the run’s commits', result, timeoutMs);
  const header = headerPattern.exec(result.stdout.subarray(0, 128).toString('latin1'));
  if (!header) throw remoteGitRefusal('remote_pack_refused', `${input.host} answered with something other than the run’s commits.`);
  const head = header[1]!;
  const workTree = header[2] === head ? null : header[2]!;
  const pack = result.stdout.subarray(header[0].length);
  const tips = workTree ? [head, workTree] : [head];

  if ((await commitsHeld(local, tips)).size < tips.length) await storeCheckedPack(local, pack, tips, { host: input.host, maxPackBytes, timeoutMs });
  if (workTree) {
    // The console made it on the host, from HEAD: anything else is not the run's work tree.
    const parent = await localGit(local.gitDir, ['rev-parse', '--verify', '-q', '--end-of-options', `${workTree}^1`], { okExitCodes: [0, 1] });
    if (parent.stdout.trim() !== head) throw remoteGitRefusal('remote_pack_refused', `${input.host} sent a work tree that is not on top of the run’s HEAD.`);
  }
  await localGit(local.gitDir, ['update-ref', '-m', 'operator-console: the run’s commits from its host', input.ref, head, current ?? '']);
  if (workTree) await localGit(local.gitDir, ['update-ref', '-m', 'operator-console: the run’s work tree on its host', remoteWorkTreeRef, workTree]);
  else await localGit(local.gitDir, ['update-ref', '-d', remoteWorkTreeRef], { okExitCodes: [0, 1] });
  return { head, workTree, shownBefore };
}

async function refValue(local: LocalRepository, ref: string): Promise<string | null> {
  const answer = await localGit(local.gitDir, ['rev-parse', '-q', '--verify', '--end-of-options', `${ref}^{commit}`], { okExitCodes: [0, 1] });
  return answer.exitCode === 0 ? answer.stdout.trim() : null;
}

/**
 * index-pack --strict into a quarantine folder beside the repository's objects, borrowing them (so a
 * link to the base is checked against what is really there); moved in only once it passed and its
 * tip is a commit. The quarantine is removed whatever happens.
 */
async function storeCheckedPack(local: LocalRepository, pack: Buffer, tips: string[], bounds: { host: string; maxPackBytes: number; timeoutMs: number }): Promise<void> {
  const quarantine = await fs.mkdtemp(path.join(local.objectsDir, 'incoming-'));
  const objects = { directory: quarantine, alternates: [local.objectsDir] };
  try {
    await fs.mkdir(path.join(quarantine, 'pack'));
    try {
      await localGit(local.gitDir, ['index-pack', '--stdin', '--strict', `--max-input-size=${bounds.maxPackBytes}`], { input: pack, objects, timeoutMs: bounds.timeoutMs });
    } catch (error) {
      if (error instanceof GitCommandError && error.timedOut) {
        throw remoteGitRefusal('remote_git_timed_out', `Checking the run’s commits from ${bounds.host} took longer than ${Math.round(bounds.timeoutMs / 1000)} s and was stopped (a pack made to be slow to check?).`);
      }
      const said = error instanceof GitCommandError ? sshWords(error.stderr) : String(error);
      throw remoteGitRefusal('remote_pack_refused', `The run’s commits from ${bounds.host} did not pass git’s check (${said}).`);
    }
    const held = await commitsHeld(local, tips, objects);
    const missing = tips.find((tip) => !held.has(tip));
    if (missing) throw remoteGitRefusal('remote_pack_refused', `${bounds.host} named ${missing.slice(0, 12)} as the run’s tip, which is not a commit among what it sent.`);
    const target = path.join(local.objectsDir, 'pack');
    await fs.mkdir(target, { recursive: true });
    const files = (await fs.readdir(path.join(quarantine, 'pack'))).filter((name) => /^pack-[0-9a-f]+\.(pack|rev|idx)$/.test(name));
    // The pack before its index: git sees a pack once its .idx is there.
    const order = (name: string) => ['.pack', '.rev', '.idx'].indexOf(path.extname(name));
    for (const name of files.sort((a, b) => order(a) - order(b))) await fs.rename(path.join(quarantine, 'pack', name), path.join(target, name));
  } finally {
    await fs.rm(quarantine, { recursive: true, force: true });
  }
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`;
}
