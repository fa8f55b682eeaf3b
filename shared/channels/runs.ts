import { z } from 'zod';
import { runDetailSchema, runDiffSchema, runEventSchema, runNetworkSchema, runStatuses, runSummarySchema } from '../entities';
import { landingStates } from '../landing';
import { channel, entityId } from './channel';

/** Runs: start, follow, stop, resume, review and clean up, and their live output. */

export const runChannels = {
  listRuns: channel(
    z
      .strictObject({
        status: z.enum(runStatuses).optional(),
        agentId: entityId.optional(),
        projectId: entityId.optional(),
        taskId: entityId.optional(),
        landingState: z.enum(landingStates).optional(),
        limit: z.number().int().min(1).max(500).optional(),
        before: z.string().max(200).optional(),
      })
      .optional(),
    z.object({ runs: z.array(runSummarySchema), nextCursor: z.string().nullable() }),
  ),

  startRun: channel(z.strictObject({ taskId: entityId, agentId: entityId }), runSummarySchema),
  getRun: channel(z.strictObject({ runId: entityId }), runDetailSchema),
  listRunEvents: channel(
    z.strictObject({ runId: entityId, afterId: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(1000).optional() }),
    z.object({ events: z.array(runEventSchema), lastId: z.number().int() }),
  ),
  /** The run's Network panel: each host it reached or was refused, aggregated from its egress decisions. */
  listRunNetwork: channel(z.strictObject({ runId: entityId }), runNetworkSchema),
  stopRun: channel(z.strictObject({ runId: entityId }), runSummarySchema),
  /** The run's changes: its view against the base revision it started from. */
  getRunDiff: channel(z.strictObject({ runId: entityId }), runDiffSchema),
  /** Opens the run's working folder in the operator's file manager (on the machine the console runs on). */
  openRunFolder: channel(z.strictObject({ runId: entityId }), z.object({ path: z.string(), opened: z.boolean() })),
  /** Keeps the run's record and cleans up its worktree. */
  archiveRun: channel(z.strictObject({ runId: entityId }), runSummarySchema),
  /** Removes the run, its record and its worktree. */
  deleteRun: channel(z.strictObject({ runId: entityId }), z.object({ runId: z.string() })),
  /** Relaunches the CLI in the run's task root with its native resume arguments (a follow-up turn with a prompt). */
  resumeRun: channel(z.strictObject({ runId: entityId, prompt: z.string().trim().min(1).max(100_000).optional() }), runSummarySchema),
  /**
   * Fetch the work again: a run on an SSH host whose work was not brought back when its agent ended
   * (its notice says why) tries once more; the notice resolves once the work is here. `alreadyBack`:
   * it had come back already (another click, another window), nothing was fetched.
   */
  fetchRunWorkAgain: channel(z.strictObject({ runId: entityId }), z.object({ run: runSummarySchema, alreadyBack: z.boolean() })),
  sendRunInput: channel(z.strictObject({ runId: entityId, data: z.string().min(1).max(64 * 1024) }), z.object({ accepted: z.boolean() })),
  resizeRun: channel(
    z.strictObject({ runId: entityId, cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }),
    z.object({ accepted: z.boolean() }),
  ),
  /**
   * Opens a live output stream to the calling client: a replay from the ledger (from the start, from
   * an offset, or the tail), then live output, as `runOutput` / `runOutputSkipped` events, with
   * `runOutputAttempt` where an attempt begins. The client acknowledges bytes once its terminal has
   * parsed them. With `until`, only the page [from, until) is replayed and nothing live follows
   * (`untilOffset` says where it ends, clamped to the output there is).
   */
  openRunOutput: channel(
    z.strictObject({
      runId: entityId,
      from: z.union([z.literal('start'), z.literal('tail'), z.number().int().min(0)]),
      until: z.number().int().min(0).optional(),
    }),
    z.object({
      subscriptionId: z.string(),
      fromOffset: z.number().int().min(0),
      totalBytes: z.number().int().min(0),
      untilOffset: z.number().int().min(0).nullable(),
    }),
  ),
  ackRunOutput: channel(z.strictObject({ subscriptionId: z.string().max(100), bytes: z.number().int().min(0) }), z.object({ ok: z.boolean() })),
  closeRunOutput: channel(z.strictObject({ subscriptionId: z.string().max(100) }), z.object({ ok: z.boolean() })),
} as const;
