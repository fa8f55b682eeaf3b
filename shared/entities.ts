import { z } from 'zod';

/**
 * The domain objects as the renderer sees them. Every value the core sends is parsed with these
 * schemas on the way out, so a field that is not declared here (a secret, an internal path) is
 * stripped before it can reach a transport.
 */

const id = z.string().min(1).max(200);
const timestamp = z.string(); // ISO 8601

export const projectSchema = z.object({
  id,
  name: z.string(),
  path: z.string(),
  isGitRepo: z.boolean(),
  createdAt: timestamp,
});
export type Project = z.infer<typeof projectSchema>;

export const directoryEntrySchema = z.object({
  name: z.string(),
  path: z.string(),
  isGitRepo: z.boolean(),
});

export const directoryListingSchema = z.object({
  path: z.string(),
  parent: z.string().nullable(),
  entries: z.array(directoryEntrySchema),
  truncated: z.boolean(),
});
export type DirectoryListing = z.infer<typeof directoryListingSchema>;

export const environmentKinds = ['local', 'sandboxed'] as const;
export const networkModes = ['open', 'none', 'provider-only'] as const;

export const environmentSchema = z.object({
  id,
  name: z.string(),
  kind: z.enum(environmentKinds),
  networkMode: z.enum(networkModes),
  requiresConnection: z.boolean(),
});
export type Environment = z.infer<typeof environmentSchema>;

export const homeModes = ['isolated', 'preconfigured'] as const;

export const agentSchema = z.object({
  id,
  name: z.string(),
  providerId: z.string(),
  model: z.string(),
  profileId: z.string(),
  capacity: z.number().int().min(1),
  homeMode: z.enum(homeModes),
  environmentId: z.string(),
  connectionId: z.string().nullable(),
  createdAt: timestamp,
});
export type Agent = z.infer<typeof agentSchema>;

export const connectionProviders = ['openai', 'anthropic', 'google', 'openrouter', 'custom'] as const;
export const connectionMethods = ['api_key', 'subscription_token'] as const;
export const connectionStatuses = ['connected', 'needs_attention', 'expired', 'revoked'] as const;

/** Metadata only: the secret never leaves the core; `secretHint` is the provider and last 4 characters. */
export const aiConnectionSchema = z.object({
  id,
  name: z.string(),
  provider: z.enum(connectionProviders),
  method: z.enum(connectionMethods),
  baseUrl: z.string().nullable(),
  ownership: z.enum(['personal', 'shared']),
  agentScope: z.enum(['all', 'chosen']),
  status: z.enum(connectionStatuses),
  secretHint: z.string().nullable(),
  createdAt: timestamp,
});
export type AiConnection = z.infer<typeof aiConnectionSchema>;

export const taskSchema = z.object({
  id,
  projectId: z.string(),
  title: z.string(),
  prompt: z.string(),
  planPath: z.string().nullable(),
  reviewPath: z.string().nullable(),
  archived: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  /** The task's most recent run, for the Tasks list. */
  latestRun: z.object({ id: z.string(), status: z.lazy(() => z.enum(runStatuses)) }).nullable(),
});
export type Task = z.infer<typeof taskSchema>;

export const runStatuses = [
  'queued',
  'admitted',
  'preparing',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'refused',
  'stranded',
] as const;
export type RunStatus = (typeof runStatuses)[number];

export const runSummarySchema = z.object({
  id,
  taskId: z.string(),
  taskTitle: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  projectId: z.string(),
  status: z.enum(runStatuses),
  attempt: z.number().int().min(0),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  endedAt: timestamp.nullable(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

export const noticeStatuses = ['open', 'resolved', 'dismissed'] as const;

export const noticeSchema = z.object({
  id,
  kind: z.string(),
  severity: z.enum(['info', 'warning', 'error']),
  title: z.string(),
  message: z.string(),
  actionUrl: z.string().nullable(),
  actionLabel: z.string().nullable(),
  runId: z.string().nullable(),
  agentId: z.string().nullable(),
  taskId: z.string().nullable(),
  status: z.enum(noticeStatuses),
  createdAt: timestamp,
  resolvedAt: timestamp.nullable(),
});
export type Notice = z.infer<typeof noticeSchema>;
