import type { LandingStrategy } from '../../shared/landing';
import { OperatorError } from '../../shared/errors';
import { GitCommandError, runGit } from '../git/git-command';
import { asGitFailure, gitFailure } from '../git/git-errors';
import { withProjectRepository } from '../git/project-repository-lock';
import { isObjectName } from '../task-root/run-branch-ref';
import { assertRunId, projectImportedRefPrefix } from '../task-root/task-root-layout';

/**
 * Landing in the project: the operator's own repository, so this is the operator's git with their
 * config (and, for a push, their credentials). The run's commits are already in it (run-import.ts);
 * nothing here reads the run's store.
 *
 * The rule the operator relies on: their working copy is never clobbered. A dry run
 * (`merge-tree --write-tree`, which touches no branch and no working copy) says what landing would
 * do; landing re-runs it and refuses before anything changes when it would conflict, or when the
 * target is checked out with uncommitted changes in files the landing touches. A checked-out target
 * is moved by `merge --ff-only` in its own worktree (which also refuses to overwrite anything), any
 * other by a compare-and-set `update-ref`.
 */

/** Plumbing that has no business running the project's hooks (reference-transaction, for one). */
const noHooks = ['-c', 'core.hooksPath=/dev/null'];

export type LandingRefusalReason = 'landing_conflicts' | 'checkout_dirty' | 'not_fast_forward' | 'target_moved' | 'nothing_to_land';

/**
 * Landing did not start: nothing changed. `files` names the conflicting or blocking files, and
 * `checkoutPath` the worktree whose uncommitted changes are in the way (checkout_dirty).
 */
export class LandingRefusal extends OperatorError {
  declare readonly reason: LandingRefusalReason;

  constructor(
    reason: LandingRefusalReason,
    message: string,
    readonly files: string[] = [],
    readonly checkoutPath: string | null = null,
  ) {
    super({ code: 'conflict', reason, message });
    this.name = 'LandingRefusal';
  }
}

export interface LandingCheckout {
  path: string;
  /** Uncommitted or untracked files there that landing would touch. */
  blockingFiles: string[];
}

export interface LandingDryRun {
  targetCommit: string;
  fastForward: boolean;
  clean: boolean;
  conflicts: string[];
  touchedFiles: string[];
  checkout: LandingCheckout | null;
  alreadyLanded: boolean;
  /** The tree landing would give the target (with conflict markers when not clean). */
  resultTree: string;
}

export interface LandInput {
  runId: string;
  tip: string;
  target: string;
  strategy: LandingStrategy;
  /** The merge or squash commit's message; unused for a fast-forward. */
  message: string;
  identity: { name: string; email: string };
  /** The target's commit the operator saw in the plan: landing refuses when it moved since. */
  expectedTargetCommit?: string;
  /**
   * Called with the commit the target is about to point at, just before it moves: the caller keeps
   * it, so a console that stops between the move and its own record finds the landing later.
   */
  beforeMove?: (commit: string) => void;
}

export interface Landed {
  /** The target's commit after landing. */
  commit: string;
  workingCopyUpdated: boolean;
  /** The worktree whose working copy was updated (the project folder or another worktree). */
  worktreePath: string | null;
}

export async function projectBranches(projectPath: string): Promise<{ branches: string[]; current: string | null }> {
  const refs = await git(projectPath, ['for-each-ref', '--format=%(refname)', 'refs/heads/'], 'list the project’s branches');
  const branches = refs.stdout.split('\n').filter(Boolean).map((ref) => ref.slice('refs/heads/'.length));
  const head = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: projectPath, okExitCodes: [0, 1] });
  return { branches, current: head.stdout.trim() || null };
}

/** The operator's git identity as the project's config has it (local, global or system); null when incomplete. */
export async function projectIdentity(projectPath: string): Promise<{ name: string; email: string } | null> {
  const read = async (key: string) => (await runGit(['config', '--get', key], { cwd: projectPath, okExitCodes: [0, 1] })).stdout.trim();
  const name = await read('user.name');
  const email = await read('user.email');
  return name && email ? { name, email } : null;
}

/** The dry run: what landing `tip` into `target` would do, changing nothing but unreferenced objects. */
export async function planLanding(projectPath: string, input: { tip: string; target: string }): Promise<LandingDryRun> {
  if (!isObjectName(input.tip)) throw new Error(`${input.tip} is not a commit name.`);
  const targetCommit = await branchCommit(projectPath, input.target);
  const alreadyLanded = await isAncestor(projectPath, input.tip, targetCommit);
  const fastForward = await isAncestor(projectPath, targetCommit, input.tip);
  let resultTree: string;
  let conflicts: string[] = [];
  if (fastForward) {
    resultTree = (await git(projectPath, ['rev-parse', `${input.tip}^{tree}`], 'read the run’s tree')).stdout.trim();
  } else {
    // Exit 1 is an answer (conflicts), not a failure. Output with -z: the tree, then the conflicted paths.
    const merged = await git(projectPath, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', targetCommit, input.tip], 'try the merge', [0, 1]);
    const [tree = '', ...paths] = merged.stdout.split('\0');
    resultTree = tree.trim();
    if (merged.exitCode === 1) conflicts = [...new Set(paths.filter(Boolean))].sort();
  }
  const touched = await git(projectPath, ['diff-tree', '-r', '-z', '--name-only', '--no-renames', targetCommit, resultTree], 'list what landing changes');
  const touchedFiles = touched.stdout.split('\0').filter(Boolean).sort();
  const checkout = await checkoutOf(projectPath, input.target, touchedFiles);
  return { targetCommit, fastForward, clean: conflicts.length === 0, conflicts, touchedFiles, checkout, alreadyLanded, resultTree };
}

export async function landInProject(projectPath: string, input: LandInput): Promise<Landed> {
  assertRunId(input.runId);
  // Planned and moved in one turn: another landing into the project cannot slip in between.
  return withProjectRepository(projectPath, () => landPlanned(projectPath, input));
}

async function landPlanned(projectPath: string, input: LandInput): Promise<Landed> {
  const plan = await planLanding(projectPath, input);
  if (input.expectedTargetCommit && input.expectedTargetCommit !== plan.targetCommit) {
    throw new LandingRefusal('target_moved', `${input.target} moved since the landing was planned (it is at ${plan.targetCommit.slice(0, 12)} now); look at the plan again.`);
  }
  if (plan.alreadyLanded) throw new LandingRefusal('nothing_to_land', `Everything the run committed is already in ${input.target}.`);
  if (input.strategy === 'fast-forward' && !plan.fastForward) {
    throw new LandingRefusal('not_fast_forward', `${input.target} has commits the run does not have, so it cannot simply move forward to the run's work; land with a merge or a squash instead.`);
  }
  if (!plan.clean) {
    throw new LandingRefusal('landing_conflicts', `The run conflicts with ${input.target} in ${listFiles(plan.conflicts)}; nothing was changed.`, plan.conflicts);
  }
  if (plan.checkout && plan.checkout.blockingFiles.length > 0) {
    throw new LandingRefusal(
      'checkout_dirty',
      `${input.target} is checked out in ${plan.checkout.path} with uncommitted changes to ${listFiles(plan.checkout.blockingFiles)}, which landing would change. Commit or stash them there, then land again; nothing was changed.`,
      plan.checkout.blockingFiles,
      plan.checkout.path,
    );
  }

  const commit = input.strategy === 'fast-forward' ? input.tip : await landingCommit(projectPath, plan, input);
  input.beforeMove?.(commit);
  if (plan.checkout) {
    await fastForwardCheckout(plan.checkout.path, input.target, plan.targetCommit, commit);
    return { commit, workingCopyUpdated: true, worktreePath: plan.checkout.path };
  }
  // Not checked out anywhere: only the branch moves, and only from the commit the plan saw.
  const moved = await runGit([...noHooks, 'update-ref', '-m', `operator-console: land run ${input.runId}`, `refs/heads/${input.target}`, commit, plan.targetCommit], {
    cwd: projectPath,
    okExitCodes: [0, 1, 128],
  });
  if (moved.exitCode !== 0) throw new LandingRefusal('target_moved', `${input.target} moved while the run was being landed; nothing was changed. Look at the plan again.`);
  return { commit, workingCopyUpdated: false, worktreePath: null };
}

/** A merge (two parents) or squash (one) commit of the dry run's tree, the operator as author and committer. */
async function landingCommit(projectPath: string, plan: LandingDryRun, input: LandInput): Promise<string> {
  const parents = input.strategy === 'merge' ? ['-p', plan.targetCommit, '-p', input.tip] : ['-p', plan.targetCommit];
  const env = {
    GIT_AUTHOR_NAME: input.identity.name,
    GIT_AUTHOR_EMAIL: input.identity.email,
    GIT_COMMITTER_NAME: input.identity.name,
    GIT_COMMITTER_EMAIL: input.identity.email,
  };
  const made = await runGit(['commit-tree', plan.resultTree, ...parents], { cwd: projectPath, env, input: input.message }).catch((error: unknown) => {
    throw asGitFailure(error, { repository: projectPath, doing: `write the ${input.strategy} commit`, retry: 'land again' });
  });
  return made.stdout.trim();
}

/**
 * Moves a checked-out target with the porcelain merge in its worktree, as the operator would: it
 * refuses to overwrite any change (the plan already refused those it could see), and runs the
 * project's own hooks, which are the operator's.
 */
async function fastForwardCheckout(worktree: string, target: string, from: string, to: string): Promise<void> {
  // The worktree must still be on the target at the planned commit: otherwise the merge would move another branch.
  const head = await runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: worktree, okExitCodes: [0, 1] });
  const at = await runGit(['rev-parse', 'HEAD'], { cwd: worktree, okExitCodes: [0, 128] });
  if (head.stdout.trim() !== `refs/heads/${target}` || at.stdout.trim() !== from) {
    throw new LandingRefusal('target_moved', `${worktree} is no longer on ${target} at the planned commit; nothing was changed. Look at the plan again.`);
  }
  try {
    await runGit(['merge', '--ff-only', '--quiet', to], { cwd: worktree });
  } catch (error) {
    if (error instanceof GitCommandError && /would be overwritten/.test(error.stderr)) {
      const files = error.stderr.split('\n').filter((line) => /^\t/.test(line)).map((line) => line.trim());
      throw new LandingRefusal('checkout_dirty', `${target} is checked out in ${worktree} with changes to ${listFiles(files)} that landing would overwrite; nothing was changed.`, files, worktree);
    }
    if (error instanceof GitCommandError && /Not possible to fast-forward/i.test(error.stderr)) {
      throw new LandingRefusal('target_moved', `${target} moved while the run was being landed; nothing was changed. Look at the plan again.`);
    }
    throw asGitFailure(error, { repository: worktree, doing: `update ${target}'s working copy`, retry: 'land again' });
  }
}

/** The worktree (the project folder included) that has `target` checked out, with its changes in landing's way. */
async function checkoutOf(projectPath: string, target: string, touchedFiles: string[]): Promise<LandingCheckout | null> {
  const listed = await git(projectPath, ['worktree', 'list', '--porcelain', '-z'], 'list the project’s worktrees');
  const worktree = parseWorktrees(listed.stdout).find((entry) => entry.branch === `refs/heads/${target}` && !entry.bare && !entry.prunable);
  if (!worktree) return null;
  const status = await git(worktree.path, ['status', '--porcelain', '-z', '--untracked-files=all', '--ignore-submodules=none'], 'read the working copy’s changes');
  const touched = new Set(touchedFiles);
  const changed = parseStatusPaths(status.stdout);
  return { path: worktree.path, blockingFiles: [...new Set(changed.filter((file) => touched.has(file)))].sort() };
}

interface WorktreeEntry {
  path: string;
  branch: string | null;
  bare: boolean;
  prunable: boolean;
}

/** `worktree list --porcelain -z`: attribute lines ended by NUL, an empty one between worktrees. */
function parseWorktrees(output: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const line of output.split('\0')) {
    if (line.startsWith('worktree ')) {
      current = { path: line.slice('worktree '.length), branch: null, bare: false, prunable: false };
      entries.push(current);
    } else if (current && line.startsWith('branch ')) current.branch = line.slice('branch '.length);
    else if (current && line === 'bare') current.bare = true;
    else if (current && line.startsWith('prunable')) current.prunable = true;
  }
  return entries;
}

/** `status --porcelain -z`: "XY path" entries; a rename or copy is followed by its original path. */
function parseStatusPaths(output: string): string[] {
  const tokens = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const entry = tokens[i];
    if (!entry || entry.length < 4) continue;
    paths.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') {
      const original = tokens[++i];
      if (original) paths.push(original);
    }
  }
  return paths;
}

export interface ProjectRemote {
  name: string;
  /** Where a push goes (the push URL when one is set), without credentials: for display. */
  url: string;
  /** Where fetches come from, without credentials: the forge's address is derived from it (forge-url.ts). */
  fetchUrl: string;
}

/** The remote a push of `branch` goes to: the branch's upstream remote, else `origin`, else the first; null when there is none. */
export async function projectRemote(projectPath: string, branch?: string): Promise<ProjectRemote | null> {
  const remotes = await projectRemotes(projectPath);
  if (remotes.length === 0) return null;
  const upstream = branch ? (await runGit(['config', '--get', `branch.${branch}.remote`], { cwd: projectPath, okExitCodes: [0, 1] })).stdout.trim() : '';
  const name = remotes.includes(upstream) ? upstream : remotes.includes('origin') ? 'origin' : remotes[0]!;
  const url = (await git(projectPath, ['remote', 'get-url', '--push', name], 'read the remote’s address')).stdout.trim();
  const fetchUrl = (await git(projectPath, ['remote', 'get-url', name], 'read the remote’s address')).stdout.trim();
  return { name, url: withoutCredentials(url), fetchUrl: withoutCredentials(fetchUrl) };
}

/**
 * An address as it may be shown: no password anywhere, and no user name in an http(s) address (a
 * token is often given as one). An ssh user (`git@`) is no secret and stays.
 */
export function withoutCredentials(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url; // scp-like `git@host:path`, or a local path
  try {
    const parsed = new URL(url);
    parsed.password = '';
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') parsed.username = '';
    return parsed.toString();
  } catch {
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  }
}

const pushTimeoutMs = 5 * 60_000;

/**
 * Pushes the landed commit to `branch` on the remote with the operator's own git: their config, their
 * credential helper or ssh agent, their pre-push hook. Never prompting (runGit sets
 * GIT_TERMINAL_PROMPT=0), within a time limit.
 */
export async function pushRunBranch(projectPath: string, input: { remote: string; commit: string; branch: string }): Promise<void> {
  if (!isObjectName(input.commit)) throw new Error(`${input.commit} is not a commit name.`);
  // Only a remote the project names (never an option or an address slipped in), and a valid branch name.
  if (!(await projectRemotes(projectPath)).includes(input.remote)) {
    throw new OperatorError({ code: 'not_found', message: `The project has no remote named “${input.remote}”.` });
  }
  const valid = await runGit(['check-ref-format', `refs/heads/${input.branch}`], { cwd: projectPath, okExitCodes: [0, 1] });
  if (valid.exitCode !== 0) throw new OperatorError({ code: 'invalid_request', message: `“${input.branch}” is not a valid branch name.` });
  const context = { repository: projectPath, doing: `push to ${input.remote}`, retry: 'push again' };
  let pushed;
  try {
    pushed = await runGit(['push', '--porcelain', input.remote, `${input.commit}:refs/heads/${input.branch}`], { cwd: projectPath, okExitCodes: [0, 1], timeoutMs: pushTimeoutMs });
  } catch (error) {
    if (!(error instanceof GitCommandError) || error.timedOut) throw asGitFailure(error, context);
    pushed = { stdout: '', stderr: error.stderr, exitCode: error.exitCode };
  }
  if (pushed.exitCode === 0) return;
  throw pushFailure(input, projectPath, pushed.stdout, pushed.stderr);
}

function pushFailure(input: { remote: string; branch: string }, projectPath: string, stdout: string, stderr: string): OperatorError {
  // --porcelain: a refused ref is a line "!<TAB>from:to<TAB>[rejected] (why)".
  const rejected = stdout.split('\n').find((line) => line.startsWith('!'));
  if (rejected) {
    const why = rejected.split('\t')[2]?.trim() ?? 'rejected';
    return new OperatorError({
      code: 'conflict',
      reason: 'push_rejected',
      message: `${input.remote} refused ${input.branch}: ${why}. ${/non-fast-forward|fetch first/.test(why) ? `The remote's ${input.branch} has commits this one does not; push under another branch name, or bring the remote's work in first.` : 'Check the remote’s rules for this branch.'}`,
    });
  }
  if (/Authentication failed|could not read Username|could not read Password|terminal prompts disabled|Permission denied \(publickey|HTTP 40[13]/i.test(stderr)) {
    return new OperatorError({
      code: 'git_failed',
      reason: 'authentication_failed',
      message: `git could not sign in to ${input.remote}. The console pushes with your own git setup and never asks for a password: check that \`git push ${input.remote}\` works from a terminal in ${projectPath} (a credential helper, or an ssh key in your agent), then push again.`,
    });
  }
  if (/Could not resolve host|Connection refused|Connection timed out|Could not read from remote repository|does not appear to be a git repository|unable to access/i.test(stderr)) {
    return new OperatorError({
      code: 'git_failed',
      reason: 'remote_unreachable',
      message: `git could not reach ${input.remote}: ${stderr.split('\n').find((line) => line.trim())?.replace(/^fatal:\s*/, '').trim() ?? 'no answer'}. Check the network and the remote’s address (\`git remote -v\`), then push again.`,
    });
  }
  return gitFailure(stderr, { repository: projectPath, doing: `push to ${input.remote}`, retry: 'push again' });
}

async function projectRemotes(projectPath: string): Promise<string[]> {
  return (await git(projectPath, ['remote'], 'list the project’s remotes')).stdout.split('\n').map((name) => name.trim()).filter(Boolean);
}

/** Removes the ref that kept the run's imported commits (run-import.ts). */
/** Whether `branch` of the project holds `commit` (it, or a descendant, is what the branch points at). */
export async function branchContains(projectPath: string, branch: string, commit: string): Promise<boolean> {
  if (!isObjectName(commit)) return false;
  const result = await runGit(['merge-base', '--is-ancestor', commit, `refs/heads/${branch}`], { cwd: projectPath, okExitCodes: [0, 1, 128] });
  return result.exitCode === 0;
}

export async function forgetRunInProject(projectPath: string, runId: string): Promise<void> {
  assertRunId(runId);
  await withProjectRepository(projectPath, () => git(projectPath, [...noHooks, 'update-ref', '-d', `${projectImportedRefPrefix}${runId}`], 'forget the run’s imported commits'));
}

async function branchCommit(projectPath: string, branch: string): Promise<string> {
  const valid = await runGit(['check-ref-format', `refs/heads/${branch}`], { cwd: projectPath, okExitCodes: [0, 1] });
  const found = valid.exitCode === 0 ? await runGit(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], { cwd: projectPath, okExitCodes: [0, 1] }) : null;
  const commit = found?.stdout.trim();
  if (!commit) throw new OperatorError({ code: 'not_found', message: `The project has no branch named “${branch}” to land into.` });
  return commit;
}

async function isAncestor(projectPath: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await git(projectPath, ['merge-base', '--is-ancestor', ancestor, descendant], 'compare the run with the target', [0, 1])).exitCode === 0;
}

async function git(cwd: string, args: string[], doing: string, okExitCodes = [0]) {
  try {
    return await runGit(args, { cwd, okExitCodes });
  } catch (error) {
    throw asGitFailure(error, { repository: cwd, doing, retry: 'try again' });
  }
}

/** A few names for a message; the full list travels in `files`. */
export function listFiles(files: string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}

