import { z } from 'zod';
import { taskSchema } from '../entities';
import { channel, entityId } from './channel';

/** Tasks: what an agent is asked to do, with its plan and review artifacts. */

const taskTitle = z.string().trim().min(1, 'a task needs a title').max(200);
const taskPrompt = z.string().trim().min(1, 'a task needs a prompt').max(100_000);
/** Artifact paths are relative to the project root (as the agent is told them), never absolute or escaping. */
const artifactPath = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .refine((value) => !value.startsWith('/') && !value.split(/[\\/]/).includes('..'), 'must be a path inside the project');

export const taskChannels = {
  listTasks: channel(
    z.strictObject({ projectId: entityId.optional(), includeArchived: z.boolean().optional() }).optional(),
    z.array(taskSchema),
  ),
  getTask: channel(z.strictObject({ taskId: entityId }), taskSchema),
  createTask: channel(
    z.strictObject({
      projectId: entityId,
      title: taskTitle,
      prompt: taskPrompt,
      planPath: artifactPath.optional(),
      reviewPath: artifactPath.optional(),
    }),
    taskSchema,
  ),
  updateTask: channel(
    z.strictObject({
      taskId: entityId,
      title: taskTitle.optional(),
      prompt: taskPrompt.optional(),
      planPath: artifactPath.nullable().optional(),
      reviewPath: artifactPath.nullable().optional(),
    }),
    taskSchema,
  ),
  setTaskArchived: channel(z.strictObject({ taskId: entityId, archived: z.boolean() }), taskSchema),
  importTasks: channel(
    z.strictObject({ projectId: entityId }),
    z.object({
      imported: z.array(taskSchema),
      alreadyImported: z.number().int().min(0),
      unpaired: z.array(z.object({ path: z.string(), reason: z.string() })),
    }),
  ),
} as const;
