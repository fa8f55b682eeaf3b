import { z } from 'zod';
import { noticeSchema, noticeStatuses, runSummarySchema } from '../entities';
import { channel, entityId, noInput } from './channel';

/** Notices: what stopped a run and what fixes it, and Run again once it is fixed. */

export const noticeChannels = {
  /** Notices by status (open by default); with runId, the notices that stand for that run, any status. */
  listNotices: channel(
    z.strictObject({ status: z.enum([...noticeStatuses, 'all']).optional(), runId: entityId.optional() }).optional(),
    z.array(noticeSchema),
  ),
  countOpenNotices: channel(noInput, z.object({ open: z.number().int().min(0) })),
  dismissNotice: channel(z.strictObject({ noticeId: entityId }), noticeSchema),
  /**
   * Run again, offered by a resolved notice (canRunAgain): starts each refused task it stands for
   * once. A second call starts nothing and answers alreadyRan with the runs the first one started.
   */
  runAgain: channel(
    z.strictObject({ noticeId: entityId }),
    z.object({ notice: noticeSchema, runs: z.array(runSummarySchema), alreadyRan: z.boolean() }),
  ),
} as const;
