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
  /** Where the CLI is, when it is not on PATH (or, for the command provider, the program to run). */
  executablePath: z.string().nullable(),
  /** The command provider's argv template (`{prompt}`, `{cwd}`, …); null uses the profile's. */
  commandArgs: z.array(z.string()).nullable(),
  /** The launch profile's revision with this agent's overrides: changes when the launch would. */
  profileRevision: z.string(),
  createdAt: timestamp,
});
export type Agent = z.infer<typeof agentSchema>;

export const catalogProfileSchema = z.object({
  id: z.string(),
  label: z.string(),
  revision: z.string(),
  maxAttempts: z.number().int().min(1),
  argsTemplate: z.array(z.string()).nullable(),
});

export const catalogProviderSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  executable: z.string().nullable(),
  testedVersion: z.string().nullable(),
  homeVariable: z.string().nullable(),
  supportsResume: z.boolean(),
  connectionProviders: z.array(z.string()),
  models: z.array(z.object({ id: z.string(), label: z.string() })),
  profiles: z.array(catalogProfileSchema),
});
export type CatalogProvider = z.infer<typeof catalogProviderSchema>;

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

export const failureSchema = z.object({
  code: z.string(),
  message: z.string(),
  reason: z.string().optional(),
  actionUrl: z.string().optional(),
});

export const attemptSchema = z.object({
  number: z.number().int().min(1),
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled', 'stranded']),
  failureCode: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** When a failed attempt will be retried (after backoff or a quota reset). */
  retryAt: timestamp.nullable(),
  startedAt: timestamp.nullable(),
  endedAt: timestamp.nullable(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const locatorSchema = z.object({
  kind: z.enum(['process', 'session']),
  data: z.record(z.string(), z.unknown()),
  revision: z.string(),
  updatedAt: timestamp,
});

export const submissionSchema = z.object({
  readyForReview: z.boolean(),
  /** A stable digest of the task's id and artifact paths, shared by every run of the task. */
  artifactIdentity: z.string(),
});

export const runDetailSchema = runSummarySchema.extend({
  providerId: z.string(),
  model: z.string(),
  profileId: z.string(),
  profileRevision: z.string().nullable(),
  configFingerprint: z.string().nullable(),
  environmentId: z.string(),
  homeMode: z.enum(homeModes),
  cwd: z.string().nullable(),
  taskRoot: z.string().nullable(),
  baseRevision: z.string().nullable(),
  failure: failureSchema.nullable(),
  attempts: z.array(attemptSchema),
  locators: z.array(locatorSchema),
  submission: submissionSchema.nullable(),
  outputBytes: z.number().int().min(0),
  archived: z.boolean(),
  /** How the run is confined (DESIGN.md section 4), as the run detail shows it. */
  confinement: z.object({
    environmentName: z.string(),
    environmentKind: z.enum(environmentKinds),
    sandbox: z.enum(['none', 'bubblewrap', 'seatbelt']),
    network: z.enum(networkModes),
    homeMode: z.enum(homeModes),
    writableRoots: z.array(z.string()),
  }),
  canStop: z.boolean(),
  canResume: z.boolean(),
  canSendInput: z.boolean(),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

/** One entry of a run's timeline: a parsed CLI event, or the console's own note (retry, resume, …). */
export const runEventSchema = z.object({
  id: z.number().int(),
  attempt: z.number().int().nullable(),
  kind: z.string(),
  at: timestamp,
  data: z.record(z.string(), z.unknown()),
});
export type RunEvent = z.infer<typeof runEventSchema>;

export const runDiffSchema = z.object({
  baseRevision: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted', 'renamed']), oldPath: z.string().optional() })),
  unifiedDiff: z.string(),
  truncated: z.boolean(),
});
export type RunDiff = z.infer<typeof runDiffSchema>;
