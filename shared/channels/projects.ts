import { z } from 'zod';
import { directoryListingSchema, projectSchema } from '../entities';
import { channel, entityId, noInput } from './channel';

/** Projects: the local folders runs work on, and the folder browser that picks them. */

export const projectChannels = {
  listProjects: channel(noInput, z.array(projectSchema)),
  addProject: channel(
    z.strictObject({ path: z.string().trim().min(1).max(4096), name: z.string().trim().min(1).max(200).optional() }),
    projectSchema,
  ),
  removeProject: channel(z.strictObject({ projectId: entityId }), z.object({ projectId: z.string() })),
  browseDirectory: channel(z.strictObject({ path: z.string().max(4096).optional() }).optional(), directoryListingSchema),
} as const;
