import type { RunSummary } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import type { LandingPlan, LandingStrategy, RunComparison, RunHoldings, RunLanding } from '../../shared/landing';
import { actionRoute } from '../../shared/routes';
import { readRunHoldings } from '../task-root/run-holdings';
import { openTaskRoot } from '../task-root/task-root';
import type { RunFileTools, TaskRoot } from '../task-root/task-root-layout';
import type { Ledger } from '../ledger/ledger';
import type { LandingIntent, RunRow } from '../ledger/runs-repository';
import type { Logger } from '../platform/log';
import type { NoticeService } from '../notices/notice-service';
import { savedAdmission } from '../runs/admission';
import type { RunOperations } from '../runs/run-operations';
import type { RunService } from '../runs/run-service';
import { endedStatuses } from '../runs/run-transitions';
import { compareUrl } from './forge-url';
import {
  branchContains,
  forgetRunInProject,
  landInProject,
  LandingRefusal,
  listFiles,
  planLanding,
  projectBranches,
  projectIdentity,
  projectRemote,
  pushRunBranch,
  type LandingDryRun,
} from './project-landing';
import { createPullRequest, detectGh } from './pull-request';
import { importRunCommits } from './run-import';
import { commitRunChanges, offerTargetToRun } from './run-store-commit';

export interface LandingServiceOptions {
  ledger: Ledger;
  runs: RunService;
  notices: NoticeService;
  log: Logger;
  /** The operator's environment: where `gh` is looked for, and what it runs with. */
  operatorEnv: NodeJS.ProcessEnv;
  now?: () => number;
}

/** How long the answer of `gh auth status` stands for the dry runs. */
const ghAnswerKeptMs = 5 * 60_000;

/** Notice kinds landing raises: the run's commits conflict with the target, or the target's checkout is in the way. */
export const landingConflictKind = 'run_conflict';
export const landingBlockedKind = 'landing_blocked';

/**
 * Why the run cannot land in a branch as things stand, as a dry run or a refused Land found it: its
 * commits conflict with the branch (`files` both changed), or the branch is checked out in
 * `checkoutPath` with uncommitted changes to `files` that landing would overwrite.
 */
type LandingObstacle = { kind: typeof landingConflictKind; files: string[] } | { kind: typeof landingBlockedKind; files: string[]; checkoutPath: string };

/**
 * Landing a run's work in its project: commit what the agent left, land it in a branch (fast-forward,
 * merge or squash, after a dry run), push the branch and open a pull request, or throw it away; and a
 * task's runs side by side.
 *
 * Where git runs is the point (DESIGN.md section 4): the run's store is the agent's, so it is only
 * ever read or written by hardened git in the tool sandbox (run-store-commit.ts, run-import.ts); the
 * run's commits are brought into the project as data (a pack, checked by `index-pack --strict`), and
 * everything after that (merge, update of the operator's working copy, push, gh) runs in the project's
 * own repository under the operator's own config and credentials, never reading the run's.
 */
export class LandingService {
  private readonly ledger: Ledger;
  private readonly now: () => number;
  /** One change to a run at a time (landing, commit, push, discard; clean-up and archive take the same turn). */
  private readonly operations: RunOperations;
  private ghAnswer: { at: number; answer: { available: boolean; hint: string | null } } | null = null;
  /**
   * Landing notices (by dedupe key) whose cause a dry run found gone while they were dismissed: when
   * it comes back it is news again. Kept in memory; after a restart a dismissed one stays quiet.
   */
  private readonly goneSinceDismissed = new Set<string>();

  constructor(private readonly options: LandingServiceOptions) {
    this.ledger = options.ledger;
    this.now = options.now ?? Date.now;
    this.operations = options.runs.workspace.operations;
    // A run whose files are gone (archived, cleaned up) can no longer land: what stood in its way is moot.
    // A discard says so in its own words once it is done.
    options.runs.workspace.onFilesRemoved((runId) => {
      if (this.operations.underWay(runId) !== 'discard') this.resolveLandingNotices(runId, 'The run’s files were removed, so it can no longer land.');
    });
  }

  /**
   * The dry run behind the Land dialog and the run's Changes: nothing the operator has changes (the
   * run's commits are only copied in). What it finds in the way of landing (a conflict, uncommitted
   * changes in the target's checkout) is a notice, raised once, and resolved once a later dry run
   * finds it gone.
   */
  async plan(runId: string, requestedTarget?: string): Promise<LandingPlan> {
    const requested = this.requireRun(runId);
    // A landing under way has recorded its intent and is about to record the rest: not settled from here.
    const row = this.operations.underWay(runId) ? requested : await this.settleLandingIntent(requested);
    const task = this.ledger.tasks.get(row.task_id);
    const commitMessage = this.commitMessage(row);
    const blocked = (reason: string, holdings: RunHoldings = emptyHoldings(row)): LandingPlan => ({
      runId,
      available: false,
      blockedBy: reason,
      holdings,
      commitMessage,
      baseBranch: row.base_branch,
      branches: [],
      target: requestedTarget ?? row.base_branch ?? '',
      targetCommit: null,
      fastForward: false,
      clean: false,
      conflicts: [],
      touchedFiles: [],
      checkout: null,
      landMessage: task?.title ?? '',
      remote: null,
      pushBranch: `operator-console/${runId}`,
      pullRequests: { available: false, hint: null },
    });
    const why = this.whyNotLandable(row);
    if (why) return blocked(why);
    const { taskRoot, tools } = await this.openRun(row);
    if (taskRoot.kind !== 'worktree' || !taskRoot.repository) {
      return blocked('This project is not a git repository, so there is no branch to land in. Open the run’s folder to copy what you need.');
    }
    const holdings = await this.holdings(row, taskRoot, tools);
    const imported = await importRunCommits(taskRoot, tools, runId);
    const { branches, current } = await projectBranches(taskRoot.projectPath);
    const target = requestedTarget ?? (row.base_branch && branches.includes(row.base_branch) ? row.base_branch : (current ?? branches[0] ?? ''));
    const base = { ...blocked('', holdings), available: true, blockedBy: null, branches, target };
    const remote = await projectRemote(taskRoot.projectPath, target || undefined);
    const pullRequests = remote ? await this.pullRequestsAvailable() : { available: false, hint: 'The project has no remote to open a pull request on.' };
    const shared = {
      ...base,
      remote: remote && { name: remote.name, url: remote.url },
      pushBranch: taskRoot.branch ?? base.pushBranch,
      pullRequests,
      landMessage: this.landMessage(row, holdings),
    };
    if (!target || !branches.includes(target)) {
      return { ...shared, available: false, blockedBy: target ? `The project has no branch “${target}”.` : 'The project has no branch to land in.' };
    }
    const dryRun = await planLanding(taskRoot.projectPath, { tip: imported.tip, target });
    this.reviewLandingNotices(row, target, obstaclesOf(dryRun));
    // Uncommitted work is landable once committed (the plan says so through its holdings).
    const uncommitted = holdings.uncommittedFiles.length > 0;
    const nothing = imported.commitCount === 0 && !uncommitted;
    // Already in the target, or landed before as it is now (a squash leaves no ancestor to find).
    const landedAsIs = row.landed_run_tip === imported.tip && row.landed_target !== null;
    const landed = (dryRun.alreadyLanded || landedAsIs) && !uncommitted;
    return {
      ...shared,
      available: !nothing && !landed,
      blockedBy: nothing
        ? 'The agent changed nothing: there is nothing to land.'
        : landed
          ? `Everything this run committed is already in ${landedAsIs ? row.landed_target : target}.`
          : null,
      targetCommit: dryRun.targetCommit,
      fastForward: dryRun.fastForward,
      clean: dryRun.clean,
      conflicts: dryRun.conflicts,
      touchedFiles: dryRun.touchedFiles,
      checkout: dryRun.checkout,
    };
  }

  /** Commits what the agent left uncommitted on the run's branch, the operator's git identity as author. */
  commit(runId: string, message: string): Promise<{ commit: string; files: string[] }> {
    return this.operations.exclusive(runId, 'commit', async () => {
      const row = this.requireLandable(runId);
      const { taskRoot, tools } = await this.openRun(row);
      const identity = await this.identity(taskRoot);
      const committed = await commitRunChanges(taskRoot, tools, { message, author: identity, now: new Date(this.now()) });
      this.options.log.info('run changes committed', { runId, commit: committed.commit, files: committed.files.length });
      this.announce(runId);
      return committed;
    });
  }

  /**
   * Lands the run in `target`, and discards the task's other runs named: all of them are this
   * request's while it runs, so a second Land (a double click) is refused rather than landed again.
   */
  land(input: {
    runId: string;
    target: string;
    strategy: LandingStrategy;
    message?: string | undefined;
    discardRunIds?: string[] | undefined;
  }): Promise<{ landing: RunLanding; workingCopyUpdated: boolean; discarded: string[] }> {
    const others = (input.discardRunIds ?? []).filter((id) => id !== input.runId);
    return this.operations.exclusive([input.runId, ...others], 'land', () => this.landNow(input, others));
  }

  private async landNow(
    input: { runId: string; target: string; strategy: LandingStrategy; message?: string | undefined },
    others: string[],
  ): Promise<{ landing: RunLanding; workingCopyUpdated: boolean; discarded: string[] }> {
    const row = this.requireLandable((await this.settleLandingIntent(this.requireRun(input.runId))).id);
    const { taskRoot, tools } = await this.openRun(row);
    for (const otherId of others) {
      const other = this.ledger.runs.row(otherId);
      if (!other || other.task_id !== row.task_id) {
        throw new OperatorError({ code: 'conflict', message: 'Only other runs of the same task can be discarded with a landing.' });
      }
    }
    const holdings = await this.holdings(row, taskRoot, tools);
    if (holdings.uncommittedFiles.length > 0) {
      throw new OperatorError({
        code: 'conflict',
        reason: 'uncommitted_changes',
        message: `The agent left ${count(holdings.uncommittedFiles.length, 'uncommitted file')}. Commit them first (Commit…), so that what lands is what you reviewed.`,
        actionUrl: actionRoute({ kind: 'run-changes', runId: row.id }),
      });
    }
    const identity = await this.identity(taskRoot);
    const imported = await importRunCommits(taskRoot, tools, row.id);
    // Landed before as it is now: a squash leaves no ancestor for the dry run to find, so the ledger says it.
    if (row.landed_run_tip === imported.tip && row.landed_target !== null) {
      throw new OperatorError({ code: 'conflict', reason: 'nothing_to_land', message: `Everything this run committed is already in ${row.landed_target}.` });
    }
    const message = input.message ?? this.landMessage(row, holdings);
    const by = `${identity.name} <${identity.email}>`;
    let landed: Awaited<ReturnType<typeof landInProject>>;
    try {
      landed = await landInProject(taskRoot.projectPath, {
        runId: row.id,
        tip: imported.tip,
        target: input.target,
        strategy: input.strategy,
        message,
        identity,
        // Kept before the branch moves: a console stopped right after finds the landing (settleLandingIntent).
        beforeMove: (commit) =>
          this.ledger.runs.recordLandingIntent(row.id, { commit, runTip: imported.tip, target: input.target, strategy: input.strategy, at: this.now(), by }),
      });
    } catch (error) {
      this.ledger.runs.recordLandingIntent(row.id, null);
      const obstacle = error instanceof LandingRefusal ? obstacleOf(error) : null;
      if (obstacle) this.noticeLandingObstacle(row, input.target, obstacle);
      throw error;
    }
    this.ledger.runs.recordLanded(row.id, { commit: landed.commit, runTip: imported.tip, target: input.target, strategy: input.strategy, at: this.now(), by });
    this.resolveLandingNotices(row.id, `The run landed in ${input.target}.`);
    this.options.log.info('run landed', { runId: row.id, target: input.target, strategy: input.strategy, commit: landed.commit });
    const discarded: string[] = [];
    for (const otherId of others) {
      await this.discardNow(otherId);
      discarded.push(otherId);
    }
    this.announce(row.id);
    return { landing: this.landingOf(row.id), workingCopyUpdated: landed.workingCopyUpdated, discarded };
  }

  /**
   * Ask the agent to resolve: the target's commit is offered to the run's store (its objects are the
   * project's, which the store borrows), and a follow-up turn names the conflict and the way out.
   */
  async resolveConflicts(runId: string, target: string): Promise<RunSummary> {
    const { prompt, files } = await this.operations.exclusive(runId, 'resolve', async () => {
      const row = this.requireLandable(runId);
      const { taskRoot, tools } = await this.openRun(row);
      const imported = await importRunCommits(taskRoot, tools, runId);
      const dryRun = await planLanding(taskRoot.projectPath, { tip: imported.tip, target });
      this.reviewLandingNotices(row, target, obstaclesOf(dryRun));
      if (dryRun.clean) {
        throw new OperatorError({ code: 'conflict', message: `The run no longer conflicts with ${target}: it can land as it is.` });
      }
      const owner = tools.isolation.kind === 'bubblewrap' && savedAdmission(row.admission_json)?.environmentKind === 'sandboxed' ? tools.isolation.setup.user : null;
      await offerTargetToRun(taskRoot, dryRun.targetCommit, owner ?? null);
      return { prompt: conflictPrompt(target, dryRun.targetCommit, dryRun.conflicts), files: dryRun.conflicts.length };
    });
    // Resumed once the turn is given back (resume refuses a run with a change under way), in the same
    // tick: from here the run is active, which every change to its work refuses.
    const summary = this.options.runs.resume(runId, prompt);
    this.options.log.info('agent asked to resolve conflicts', { runId, target, files });
    return summary;
  }

  /** Pushes the run's branch to the project's remote, from the project, with the operator's own credentials. */
  push(runId: string): Promise<RunLanding> {
    return this.operations.exclusive(runId, 'push', () => this.pushNow(runId));
  }

  private async pushNow(runId: string): Promise<RunLanding> {
    const row = this.requireLandable(runId);
    const { taskRoot, tools } = await this.openRun(row);
    const imported = await importRunCommits(taskRoot, tools, runId);
    const base = row.landed_target ?? row.base_branch;
    const remote = await projectRemote(taskRoot.projectPath, base ?? undefined);
    if (!remote) {
      throw new OperatorError({
        code: 'conflict',
        reason: 'no_remote',
        message: `${taskRoot.projectPath} has no git remote to push to. Add one (git remote add origin <url>) and push again.`,
      });
    }
    const branch = taskRoot.branch ?? `operator-console/${runId}`;
    await pushRunBranch(taskRoot.projectPath, { remote: remote.name, commit: imported.tip, branch });
    const compare = compareUrl(remote.fetchUrl, { base: base ?? 'main', branch });
    this.ledger.runs.recordPushed(runId, { remote: remote.name, branch, at: this.now(), compareUrl: compare?.url ?? null });
    this.options.log.info('run branch pushed', { runId, remote: remote.name, branch });
    this.announce(runId);
    return this.landingOf(runId);
  }

  createPullRequest(runId: string, title: string, body: string): Promise<{ url: string }> {
    return this.operations.exclusive(runId, 'pull_request', () => this.createPullRequestNow(runId, title, body));
  }

  private async createPullRequestNow(runId: string, title: string, body: string): Promise<{ url: string }> {
    const row = this.requireRun(runId);
    const landing = this.landingOf(runId);
    if (!landing.pushed) throw new OperatorError({ code: 'conflict', message: 'Push the run’s branch first: the pull request is opened from it.' });
    const project = this.projectOf(row);
    // Asked afresh (the answer the dry run showed may be minutes old), and kept for the next dry runs.
    const gh = await this.pullRequestsAvailable({ fresh: true });
    if (!gh.available) throw new OperatorError({ code: 'conflict', reason: 'gh_unavailable', message: gh.hint ?? 'The GitHub CLI (gh) is not available.' });
    const created = await createPullRequest(
      project.path,
      { base: row.landed_target ?? row.base_branch ?? 'main', head: landing.pushed.branch, title, body },
      this.options.operatorEnv,
    );
    this.ledger.runs.recordPullRequest(runId, created.url);
    this.announce(runId);
    return created;
  }

  /** Throws the run's work away: its store, its branch, its files. The ledger keeps its history and a summary of its changes. */
  discard(runId: string): Promise<RunSummary> {
    return this.operations.exclusive(runId, 'discard', () => this.discardNow(runId));
  }

  /** Discard, the run's turn held by the caller (Discard itself, or a landing that discards the task's other runs). */
  private async discardNow(runId: string): Promise<RunSummary> {
    const row = this.requireEnded(runId, 'discarded');
    if (row.landing_state === 'discarded') return this.options.runs.summary(runId);
    // Discard throws the run's work away, also what was never brought back from its host.
    await this.options.runs.workspace.removeFiles(row.id, { discardWorkOnHost: true });
    const project = this.ledger.tasks.get(row.task_id) && this.projectOf(row);
    if (project?.isGitRepo) await forgetRunInProject(project.path, runId).catch(() => undefined);
    this.ledger.runs.recordDiscarded(runId, this.now());
    this.resolveLandingNotices(runId, 'The run’s work was discarded.');
    this.options.log.info('run discarded', { runId });
    this.announce(runId);
    return this.options.runs.summary(runId);
  }

  /** Starts the task once per agent, each run in its own task root; a refusal of one does not stop the others. */
  startMany(taskId: string, agentIds: string[]): { runs: RunSummary[] } {
    return { runs: [...new Set(agentIds)].map((agentId) => this.options.runs.start(taskId, agentId)) };
  }

  /** A task's runs side by side: how each went and what it changed. */
  /** An address the console recorded on a run (its compare page, its pull request): the desktop shell may open it. */
  isRecordedForgeAddress(url: string): boolean {
    return /^https?:\/\//i.test(url) && this.ledger.runs.isRecordedForgeAddress(url);
  }

  async compare(taskId: string): Promise<{ taskId: string; taskTitle: string; runs: RunComparison[] }> {
    const task = this.ledger.tasks.get(taskId);
    if (!task) throw new OperatorError({ code: 'not_found', message: 'That task is no longer in the console.', actionUrl: actionRoute({ kind: 'tasks' }) });
    const runs: RunComparison[] = [];
    for (const row of this.ledger.runs.ofTask(taskId)) {
      const summary = this.options.runs.summary(row.id);
      const started = row.started_at;
      const ended = row.ended_at;
      let changes: Pick<RunComparison, 'filesChanged' | 'linesAdded' | 'linesRemoved' | 'changesNote'>;
      if (row.status === 'refused' || row.task_root === null) {
        changes = { filesChanged: null, linesAdded: null, linesRemoved: null, changesNote: 'It never started.' };
      } else if (!endedStatuses.includes(row.status)) {
        changes = { filesChanged: null, linesAdded: null, linesRemoved: null, changesNote: 'Still running.' };
      } else {
        changes = await this.options.runs.workspace.diff(row.id).then(
          (diff) => ({
            filesChanged: diff.files.length,
            linesAdded: diff.files.reduce((sum, file) => sum + (file.additions ?? 0), 0),
            linesRemoved: diff.files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
            changesNote: diff.filesRemovedAt ? 'Its files were cleaned up: the counts are the ones kept then.' : null,
          }),
          (error: unknown) => ({
            filesChanged: null,
            linesAdded: null,
            linesRemoved: null,
            changesNote: error instanceof OperatorError ? error.message : 'Its changes could not be read.',
          }),
        );
      }
      runs.push({
        runId: row.id,
        agentId: summary.agentId,
        agentName: summary.agentName,
        status: row.status,
        attempts: summary.attempt,
        durationMs: started !== null && ended !== null ? Math.max(0, ended - started) : null,
        tokens: this.ledger.runs.reportedTokens(row.id),
        ...changes,
        landing: summary.landing,
      });
    }
    return { taskId, taskTitle: task.title, runs };
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Whether `gh` can open pull requests. `gh auth status` may ask GitHub (seconds), and the dry run
   * runs each time a run's Changes are looked at: the answer is kept for a few minutes.
   */
  private async pullRequestsAvailable(options: { fresh?: boolean } = {}): Promise<{ available: boolean; hint: string | null }> {
    const kept = this.ghAnswer;
    if (!options.fresh && kept && this.now() - kept.at < ghAnswerKeptMs) return kept.answer;
    const answer = await detectGh(this.options.operatorEnv);
    this.ghAnswer = { at: this.now(), answer };
    return answer;
  }

  /**
   * A landing the console began and never recorded (it stopped between moving the branch and writing
   * the ledger): recorded now when the branch holds its commit, else forgotten, since the branch never
   * moved. So a squash is never landed twice, and the run's state tells the truth.
   */
  private async settleLandingIntent(row: RunRow): Promise<RunRow> {
    if (!row.landing_intent_json) return row;
    let intent: LandingIntent | null;
    try {
      intent = JSON.parse(row.landing_intent_json) as LandingIntent;
    } catch {
      intent = null;
    }
    const project = this.ledger.tasks.get(row.task_id) ? this.projectOf(row) : null;
    if (intent && project && (await branchContains(project.path, intent.target, intent.commit))) {
      this.ledger.runs.recordLanded(row.id, intent);
      this.options.log.info('an unrecorded landing was found and recorded', { runId: row.id, target: intent.target, commit: intent.commit });
      this.announce(row.id);
    } else {
      this.ledger.runs.recordLandingIntent(row.id, null);
    }
    return this.requireRun(row.id);
  }

  private landingOf(runId: string): RunLanding {
    return this.options.runs.summary(runId).landing;
  }

  private async holdings(row: RunRow, taskRoot: TaskRoot, tools: RunFileTools): Promise<RunHoldings> {
    const held = await readRunHoldings(taskRoot, tools, { landedRunTip: row.landed_run_tip });
    return { uncommittedFiles: held.uncommittedFiles, unlandedCommits: held.unlandedCommits, diskBytes: row.disk_bytes };
  }

  private async identity(taskRoot: TaskRoot): Promise<{ name: string; email: string }> {
    const identity = await projectIdentity(taskRoot.projectPath);
    if (identity) return identity;
    throw new OperatorError({
      code: 'git_failed',
      reason: 'identity_missing',
      message: `git does not know who you are in ${taskRoot.projectPath}, so the console cannot commit in your name. Run git config --global user.name "Your Name" and git config --global user.email you@example.com, then try again.`,
    });
  }

  private async openRun(row: RunRow): Promise<{ taskRoot: TaskRoot; tools: RunFileTools }> {
    const taskRoot = row.task_root ? await openTaskRoot(this.options.runs.workspace.dataDir, row.id) : null;
    if (!taskRoot) throw new OperatorError({ code: 'not_found', message: 'This run has no working folder any more, so there is nothing to land.' });
    if (taskRoot.legacy) {
      throw new OperatorError({ code: 'conflict', message: 'This run was made by an earlier version of the console and cannot be landed from here. Review its changes and re-run the task.' });
    }
    const tools = await this.options.runs.workspace.toolsFor(savedAdmission(row.admission_json), 'read');
    return { taskRoot, tools };
  }

  private whyNotLandable(row: RunRow): string | null {
    if (row.landing_state === 'discarded') return 'This run’s work was discarded.';
    if (row.files_removed_at !== null || row.archived_at !== null) return 'This run’s files were cleaned up, so its work can no longer be landed.';
    if (row.status === 'refused' || row.task_root === null) return 'This run never started, so it changed nothing.';
    if (!endedStatuses.includes(row.status) || this.options.runs.isActive(row.id)) return 'The run is still going. Land it once it has ended.';
    return null;
  }

  private requireRun(runId: string): RunRow {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    return row;
  }

  private requireEnded(runId: string, verb: string): RunRow {
    const row = this.requireRun(runId);
    if (!endedStatuses.includes(row.status) || this.options.runs.isActive(runId)) {
      throw new OperatorError({ code: 'conflict', message: `A run that is queued or running cannot be ${verb}. Stop it first.` });
    }
    return row;
  }

  /** A run whose work is still there to land, commit or push (a landed run can land its later commits too). */
  private requireLandable(runId: string): RunRow {
    const row = this.requireRun(runId);
    const why = this.whyNotLandable(row);
    if (why) throw new OperatorError({ code: 'conflict', message: why });
    return row;
  }

  private projectOf(row: RunRow): { path: string; isGitRepo: boolean } {
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    if (!project) throw new OperatorError({ code: 'not_found', message: 'The run’s project was removed from the console.' });
    return project;
  }

  /** The task title, then the agent's last words (its own summary of what it did), for the commit message. */
  private commitMessage(row: RunRow): string {
    const task = this.ledger.tasks.get(row.task_id);
    const summary = this.ledger.runs.lastAssistantMessage(row.id);
    return [task?.title ?? 'Changes from an agent run', summary ? `\n${summary.trim().slice(0, 4000)}` : ''].join('\n').trim();
  }

  private landMessage(row: RunRow, holdings: RunHoldings): string {
    const task = this.ledger.tasks.get(row.task_id);
    const agent = this.ledger.agents.get(row.agent_id);
    const subjects = holdings.unlandedCommits.map((commit) => `- ${commit.subject}`);
    return [task?.title ?? 'Changes from an agent run', '', ...subjects, ...(subjects.length ? [''] : []), `Run ${row.id} (${agent?.name ?? 'agent'}), landed with Operator Console.`].join('\n');
  }

  /**
   * What a dry run found in the way of landing in `target`, against the notices standing for it:
   * each obstacle is noticed (once), and a notice whose obstacle the dry run no longer finds resolves.
   */
  private reviewLandingNotices(row: RunRow, target: string, obstacles: LandingObstacle[]): void {
    for (const obstacle of obstacles) this.noticeLandingObstacle(row, target, obstacle);
    const found = new Set(obstacles.map((obstacle) => obstacle.kind));
    const gone: Record<LandingObstacle['kind'], string> = {
      [landingConflictKind]: `The run no longer conflicts with ${target}.`,
      [landingBlockedKind]: `No uncommitted change in ${target}’s checkout is in the way any more.`,
    };
    for (const kind of [landingConflictKind, landingBlockedKind] as const) {
      if (found.has(kind)) continue;
      const key = landingNoticeKey(kind, row.id, target);
      const latest = this.options.notices.latestForKey(key);
      if (latest?.status === 'open') this.options.notices.resolve(latest.id, gone[kind]);
      else if (latest?.status === 'dismissed') this.goneSinceDismissed.add(key);
    }
  }

  /**
   * Tells the operator, once, that the run cannot land in `target` as things stand, and how to fix
   * it. One notice per run, target and kind: while it is open it is kept (its words brought up to
   * date when the files changed); once dismissed, the same words are not said again while the cause
   * stands; once resolved, or gone and back, the obstacle is news again.
   */
  private noticeLandingObstacle(row: RunRow, target: string, obstacle: LandingObstacle): void {
    const content = this.obstacleNotice(row, target, obstacle);
    const latest = this.options.notices.latestForKey(content.dedupeKey);
    if (latest?.status === 'open') {
      this.options.notices.revise(latest.id, { message: content.message, actionUrl: content.actionUrl, actionLabel: content.actionLabel });
      return;
    }
    const seen = latest?.status === 'dismissed' && latest.message === content.message && !this.goneSinceDismissed.has(content.dedupeKey);
    if (seen) return;
    this.goneSinceDismissed.delete(content.dedupeKey);
    this.options.notices.raise(content);
  }

  private obstacleNotice(row: RunRow, target: string, obstacle: LandingObstacle) {
    const task = this.ledger.tasks.get(row.task_id);
    const title = task?.title ?? row.task_id;
    const about = {
      kind: obstacle.kind,
      severity: 'warning' as const,
      code: 'conflict',
      runId: row.id,
      agentId: row.agent_id,
      taskId: row.task_id,
      subject: { target, files: obstacle.files },
      dedupeKey: landingNoticeKey(obstacle.kind, row.id, target),
    };
    if (obstacle.kind === landingConflictKind) {
      return {
        ...about,
        reason: 'landing_conflicts',
        title: `Run conflicts with ${target}`,
        message: `“${title}” cannot land in ${target}: both changed ${listFiles(obstacle.files)}. Ask the agent to resolve the conflict, or open the run’s folder and resolve it yourself.`,
        actionUrl: actionRoute({ kind: 'run-changes', runId: row.id, target }),
        actionLabel: 'Ask the agent to resolve',
      };
    }
    return {
      ...about,
      reason: 'checkout_dirty',
      title: `Landing in ${target} would overwrite your uncommitted changes`,
      message: `${target} is checked out in ${obstacle.checkoutPath} with uncommitted changes to ${listFiles(obstacle.files)}, which landing “${title}” would overwrite. Commit or stash them there, then land.`,
      actionUrl: actionRoute({ kind: 'run-changes', runId: row.id, land: true, target }),
      actionLabel: 'Land…',
    };
  }

  private resolveLandingNotices(runId: string, resolution: string): void {
    for (const kind of [landingConflictKind, landingBlockedKind]) {
      for (const notice of this.options.notices.openOfKind(kind)) {
        if (notice.runIds.includes(runId) || notice.runId === runId) this.options.notices.resolve(notice.id, resolution);
      }
    }
  }

  private announce(runId: string): void {
    this.options.runs.announce(runId);
  }
}

function landingNoticeKey(kind: LandingObstacle['kind'], runId: string, target: string): string {
  return `${kind}:${runId}:${target}`;
}

/** What a dry run found in the way: the conflicts, and the uncommitted changes in the target's checkout that landing would overwrite. */
function obstaclesOf(dryRun: LandingDryRun): LandingObstacle[] {
  const obstacles: LandingObstacle[] = [];
  if (!dryRun.clean) obstacles.push({ kind: landingConflictKind, files: dryRun.conflicts });
  if (dryRun.checkout && dryRun.checkout.blockingFiles.length > 0) {
    obstacles.push({ kind: landingBlockedKind, files: dryRun.checkout.blockingFiles, checkoutPath: dryRun.checkout.path });
  }
  return obstacles;
}

/** The obstacle a refused Land names, when it is one the operator can remove (a moved target only needs a new look). */
function obstacleOf(refusal: LandingRefusal): LandingObstacle | null {
  if (refusal.reason === 'landing_conflicts') return { kind: landingConflictKind, files: refusal.files };
  if (refusal.reason === 'checkout_dirty' && refusal.checkoutPath) return { kind: landingBlockedKind, files: refusal.files, checkoutPath: refusal.checkoutPath };
  return null;
}

function emptyHoldings(row: RunRow): RunHoldings {
  return { uncommittedFiles: [], unlandedCommits: [], diskBytes: row.files_removed_at === null ? row.disk_bytes : null };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The follow-up turn of "Ask the agent to resolve": what conflicts, where the target is, what to do. */
export function conflictPrompt(target: string, targetCommit: string, files: string[]): string {
  return [
    `Your work cannot land in the branch ${target}: it moved on since you started, and both sides changed ${files.join(', ')}.`,
    `The current ${target} is in your repository as the ref refs/operator-console/land-target (commit ${targetCommit}).`,
    'Bring your branch up to date with it: run `git merge refs/operator-console/land-target`, resolve every conflict keeping the intent of both sides, make sure the project still builds and its tests pass, and commit the merge.',
  ].join('\n\n');
}
