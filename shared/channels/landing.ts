import { z } from 'zod';
import { runSummarySchema } from '../entities';
import {
  cleanupCandidateSchema,
  cleanupPolicySchema,
  diskUsageSchema,
  ledgerSpaceSchema,
  landingPlanSchema,
  landingStrategies,
  runComparisonSchema,
  runLandingSchema,
} from '../landing';
import { channel, entityId, noInput } from './channel';

/** Landing a run's work in the project, comparing a task's runs, and the disk their task roots take. */

const commitMessage = z.string().trim().min(1, 'a commit needs a message').max(20_000);
/** A branch name as git allows it (checked again by `git check-ref-format` in the core). */
const branchName = z
  .string()
  .trim()
  .min(1)
  .max(250)
  // Spaces, control characters and git's special characters are refused here; the core asks git too.
  .refine((value) => !value.startsWith('-') && !/[\p{Cc}\s~^:?*[\\]|\.\.|@\{|\/\/|\.lock$|\/$|^\//u.test(value), 'not a branch name git allows');

export const landingChannels = {
  /** The dry run: what the run holds, whether it lands cleanly in `target` (default: its base branch), what is in the way. */
  getLandingPlan: channel(z.strictObject({ runId: entityId, target: branchName.optional() }), landingPlanSchema),
  /** Commits what the agent left uncommitted on the run's branch, with the operator's git identity as author. */
  commitRunChanges: channel(
    z.strictObject({ runId: entityId, message: commitMessage }),
    z.object({ commit: z.string(), files: z.array(z.string()) }),
  ),
  /**
   * Lands the run's commits in `target`. Refused, with a notice naming the files, when they conflict
   * or the target's checkout has uncommitted changes in them. `discardRunIds` (other runs of the same
   * task) are discarded in the same step once it landed.
   */
  landRun: channel(
    z.strictObject({
      runId: entityId,
      target: branchName,
      strategy: z.enum(landingStrategies),
      message: commitMessage.optional(),
      discardRunIds: z.array(entityId).max(50).optional(),
    }),
    z.object({ landing: runLandingSchema, workingCopyUpdated: z.boolean(), discarded: z.array(z.string()) }),
  ),
  /** Ask the agent to resolve: a follow-up turn on the run, its store given the target, with a prompt naming the conflicts. */
  resolveRunConflicts: channel(z.strictObject({ runId: entityId, target: branchName }), runSummarySchema),
  /** Pushes the run's branch to the project's remote, under the operator's own git config and credentials. */
  pushRunBranch: channel(z.strictObject({ runId: entityId }), runLandingSchema),
  /** Opens a pull request for the pushed branch with `gh`. */
  createPullRequest: channel(
    z.strictObject({ runId: entityId, title: z.string().trim().min(1).max(300), body: z.string().max(60_000) }),
    z.object({ url: z.string() }),
  ),
  /** Throws the run's work away: its store, its branch and its files. The run's history stays. */
  discardRun: channel(z.strictObject({ runId: entityId }), runSummarySchema),
  /** Starts a task on several agents at once: one run each, each in its own task root. */
  startRuns: channel(
    z.strictObject({ taskId: entityId, agentIds: z.array(entityId).min(1).max(12) }),
    z.object({ runs: z.array(runSummarySchema) }),
  ),
  /** A task's runs side by side. */
  /**
   * Whether an http(s) address is one the console derived and recorded on a run (a compare page, a
   * pull request): the desktop shell opens only those in the operator's browser.
   */
  isRecordedForgeAddress: channel(z.strictObject({ url: z.string().max(4000) }), z.object({ recorded: z.boolean() })),
  compareTaskRuns: channel(z.strictObject({ taskId: entityId }), z.object({ taskId: z.string(), taskTitle: z.string(), runs: z.array(runComparisonSchema) })),
  /** The task roots' total size and the largest; `refresh` measures them again first. */
  getDiskUsage: channel(z.strictObject({ refresh: z.boolean().optional() }).optional(), diskUsageSchema),
  /** Clean up's dry run: the finished runs whose files could go, and what each holds. Removes nothing. */
  planCleanup: channel(noInput, z.object({ candidates: z.array(cleanupCandidateSchema) })),
  /**
   * Removes the task roots of `runIds`. A run that holds unlanded work (or work left on its SSH host), or could be resumed, goes only
   * when it is also in `confirmedRunIds`; otherwise it is kept and listed in `kept`.
   */
  cleanUpRuns: channel(
    z.strictObject({ runIds: z.array(entityId).min(1).max(500), confirmedRunIds: z.array(entityId).max(500).optional() }),
    z.object({
      removed: z.array(z.string()),
      kept: z.array(z.object({ runId: z.string(), reason: z.string() })),
      /** Runs' files and the hosts' unused git stores together. */
      freedBytes: z.number().int().min(0),
      /**
       * The projects' git stores removed on each SSH host because no run there needs them any more (or
       * the host that could not be asked, with why); hosts with nothing to say are left out.
       */
      gitStores: z
        .array(z.object({ host: z.string(), removed: z.number().int().min(0), freedBytes: z.number().int().min(0), error: z.string().nullable() }))
        .default([]),
    }),
  ),
  /**
   * Gives the free space inside the ledger (left by deleted runs) back to the disk, a step at a time
   * off the event loop; answers how much the ledger shrank and its figures now.
   */
  reclaimLedgerSpace: channel(noInput, z.object({ reclaimedBytes: z.number().int().min(0), ledger: ledgerSpaceSchema })),
  getCleanupPolicy: channel(noInput, cleanupPolicySchema),
  setCleanupPolicy: channel(cleanupPolicySchema.strict(), cleanupPolicySchema),
} as const;
