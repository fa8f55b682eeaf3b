import { z } from 'zod';

/**
 * Landing a run's work (issue 13): what a run holds that is not in the project yet, how it lands in a
 * branch of the project, pushing it, and the disk its task root takes. The domain objects as the
 * renderer sees them; the channels are in shared/channels/landing.ts.
 */

const timestamp = z.string(); // ISO 8601

export const landingStrategies = ['fast-forward', 'merge', 'squash'] as const;
export type LandingStrategy = (typeof landingStrategies)[number];

/** Where a run's work stands: in its own store only, landed in a branch of the project, pushed, or thrown away. */
export const landingStates = ['not_landed', 'landed', 'pushed', 'discarded'] as const;
export type LandingState = (typeof landingStates)[number];

export const runLandingSchema = z.object({
  state: z.enum(landingStates),
  landed: z
    .object({
      /** The commit the target branch points at after landing. */
      commit: z.string(),
      target: z.string(),
      strategy: z.enum(landingStrategies),
      at: timestamp,
      /** The operator's git identity ("Name <email>"), else the console's user name. */
      by: z.string(),
    })
    .nullable(),
  pushed: z
    .object({
      remote: z.string(),
      branch: z.string(),
      at: timestamp,
      /** The forge's compare / pull-request address derived from the remote URL; null for a forge the console does not know. */
      compareUrl: z.string().nullable(),
      /** The pull request `gh` created, once one was. */
      pullRequestUrl: z.string().nullable(),
    })
    .nullable(),
  discardedAt: timestamp.nullable(),
  /** When the run's task root (its files, store and branch) was removed; its history stays in the ledger. */
  filesRemovedAt: timestamp.nullable(),
  /** The task root's size on disk when last measured; null before the first measure or after removal. */
  diskBytes: z.number().int().min(0).nullable(),
});
export type RunLanding = z.infer<typeof runLandingSchema>;

export const runCommitSchema = z.object({ sha: z.string(), subject: z.string() });

/** What a run holds that the project does not have yet: what Discard and Clean up would lose. */
export const runHoldingsSchema = z.object({
  /** Files the agent changed and never committed on its branch. */
  uncommittedFiles: z.array(z.string()),
  /** The run's commits after its base that are not landed (empty once the run landed). */
  unlandedCommits: z.array(runCommitSchema),
  diskBytes: z.number().int().min(0).nullable(),
});
export type RunHoldings = z.infer<typeof runHoldingsSchema>;

/** Everything the Land dialog needs, computed by a dry run that changes nothing the operator has. */
export const landingPlanSchema = z.object({
  runId: z.string(),
  /** Landing is possible at all (a git project, files still there, not discarded); `blockedBy` says why not. */
  available: z.boolean(),
  blockedBy: z.string().nullable(),
  holdings: runHoldingsSchema,
  /** The commit message Commit proposes: the task title and the agent's final summary. */
  commitMessage: z.string(),
  /** The branch the run was based on (null when it started from a detached commit), and the project's local branches. */
  baseBranch: z.string().nullable(),
  branches: z.array(z.string()),
  target: z.string(),
  targetCommit: z.string().nullable(),
  /** The target can simply move forward to the run's work. */
  fastForward: z.boolean(),
  /** The run's commits merge into the target without conflicts (the dry run's answer). */
  clean: z.boolean(),
  conflicts: z.array(z.string()),
  /** The files landing changes in the target. */
  touchedFiles: z.array(z.string()),
  /** The target is checked out here, in the project folder or one of its worktrees; null when not. */
  checkout: z
    .object({
      path: z.string(),
      /** Files with uncommitted changes there that landing would touch: landing is refused while there are any. */
      blockingFiles: z.array(z.string()),
    })
    .nullable(),
  /** The message a merge or squash commit gets, editable. */
  landMessage: z.string(),
  remote: z.object({ name: z.string(), url: z.string() }).nullable(),
  pushBranch: z.string(),
  /** `gh` for Create pull request: `hint` says what to install or run when it cannot be used. */
  pullRequests: z.object({ available: z.boolean(), hint: z.string().nullable() }),
});
export type LandingPlan = z.infer<typeof landingPlanSchema>;

/** One run of a task in the Compare view. */
export const runComparisonSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  status: z.string(),
  attempts: z.number().int().min(0),
  durationMs: z.number().int().min(0).nullable(),
  /** Tokens the run used, when its CLI reported them; null when not known. */
  tokens: z.number().int().min(0).nullable(),
  filesChanged: z.number().int().min(0).nullable(),
  linesAdded: z.number().int().min(0).nullable(),
  linesRemoved: z.number().int().min(0).nullable(),
  landing: runLandingSchema,
  /** Why the changes could not be counted (files removed, never started, ...), else null. */
  changesNote: z.string().nullable(),
});
export type RunComparison = z.infer<typeof runComparisonSchema>;

export const cleanupCandidateSchema = z.object({
  runId: z.string(),
  taskTitle: z.string(),
  agentName: z.string(),
  status: z.string(),
  landingState: z.enum(landingStates),
  endedAt: timestamp.nullable(),
  holdings: runHoldingsSchema,
  /** Why what the run holds could not be read (its sandbox is not available here, its store is damaged); its holdings are then unknown, not empty. */
  holdingsError: z.string().nullable().optional(),
  /** Landed or discarded runs go without a question; the others only when named in `confirmedUnlanded`. */
  freelyRemovable: z.boolean(),
  /** The run could still be resumed: its files go only when the operator says so. */
  resumable: z.boolean(),
  /**
   * The SSH host that holds the run's work only, because bringing it back failed (issue 28): its files
   * go only when the operator confirms that work is discarded. Null for every other run.
   */
  workLeftOnHost: z.string().nullable().default(null),
});
export type CleanupCandidate = z.infer<typeof cleanupCandidateSchema>;

/** The ledger's room on the disk (electron/ledger/ledger-space.ts). */
export const ledgerSpaceSchema = z.object({
  /** `ledger.sqlite`'s path. */
  file: z.string(),
  fileBytes: z.number().int().min(0),
  /** Its write-ahead log, `ledger.sqlite-wal` (0 when there is none). */
  walBytes: z.number().int().min(0),
  /** Free space inside the file (left by deleted runs) that can go back to the disk. */
  reclaimableBytes: z.number().int().min(0),
  /**
   * `incremental`: deleting a run gives its space back at once, and Give back does the rest.
   * `not_converted`: a ledger made by an earlier console, converted at a start when its disk has room.
   */
  mode: z.enum(['incremental', 'not_converted']),
  /** Space is being given back right now. */
  reclaiming: z.boolean(),
});
export type LedgerSpace = z.infer<typeof ledgerSpaceSchema>;

export const diskUsageSchema = z.object({
  totalBytes: z.number().int().min(0),
  runsWithFiles: z.number().int().min(0),
  largest: z.array(z.object({ runId: z.string(), taskTitle: z.string(), agentName: z.string(), bytes: z.number().int().min(0) })),
  /** When the oldest of the sizes summed was measured (sizes are measured when runs end and on Refresh). */
  measuredAt: timestamp.nullable(),
  /** The ledger, which keeps every run's history and output, measured now. */
  ledger: ledgerSpaceSchema,
  /**
   * What runs take on each SSH host that has had some (issue 28): their task roots and spools under
   * the console's folder there, measured over ssh on Refresh; `error` when the host did not answer.
   */
  hosts: z
    .array(
      z.object({
        hostId: z.string(),
        name: z.string(),
        runs: z.number().int().min(0),
        /** The runs' folders and the projects' git stores together. */
        bytes: z.number().int().min(0).nullable(),
        /** The projects' git stores there (one per project whose runs went there, kept while a run there needs it). */
        gitStores: z.number().int().min(0).default(0),
        gitStoreBytes: z.number().int().min(0).nullable().default(null),
        error: z.string().nullable(),
        measuredAt: timestamp,
      }),
    )
    .default([]),
});
export type DiskUsage = z.infer<typeof diskUsageSchema>;

export const cleanupPolicySchema = z.object({
  /** Remove the task roots of landed and discarded runs this many days after they landed or were discarded; null: never. */
  removeSettledAfterDays: z.number().int().min(1).max(3650).nullable(),
});
export type CleanupPolicy = z.infer<typeof cleanupPolicySchema>;
