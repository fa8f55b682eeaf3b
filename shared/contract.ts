import { z } from 'zod';
import {
  agentCliVersionSchema,
  agentSchema,
  agentTestResultSchema,
  catalogProviderSchema,
  connectionAgentScopes,
  connectionMethods,
  connectionOwnerships,
  connectionProviders,
  connectionTestResultSchema,
  vaultInfoSchema,
  homeModes,
  runDetailSchema,
  runDiffSchema,
  runEventSchema,
  aiConnectionSchema,
  attemptStartSchema,
  directoryListingSchema,
  environmentSchema,
  noticeSchema,
  noticeStatuses,
  projectSchema,
  runStatuses,
  runSummarySchema,
  taskSchema,
} from './entities';

/**
 * The contract between the renderer and the core: every request channel and every pushed event, each
 * with its schema. Both transports (Electron IPC and the browser host's WebSocket) validate incoming
 * payloads against these before the core sees them, and the core's answers are parsed against the
 * output schemas before they leave. Nothing else crosses the boundary.
 */

/** The largest request payload either transport accepts, in bytes of its JSON encoding. */
export const maxRequestBytes = 1024 * 1024;

const noInput = z.strictObject({}).optional();
const entityId = z.string().min(1).max(200);

const taskTitle = z.string().trim().min(1, 'a task needs a title').max(200);
const taskPrompt = z.string().trim().min(1, 'a task needs a prompt').max(100_000);
/** Artifact paths are relative to the project root (as the agent is told them), never absolute or escaping. */
const artifactPath = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .refine((value) => !value.startsWith('/') && !value.split(/[\\/]/).includes('..'), 'must be a path inside the project');

const agentFields = {
  name: z.string().trim().min(1, 'an agent needs a name').max(100),
  providerId: z.string().min(1).max(100),
  model: z.string().trim().min(1).max(200),
  profileId: z.string().min(1).max(100),
  capacity: z.number().int().min(1).max(32).optional(),
  homeMode: z.enum(homeModes).optional(),
  environmentId: entityId.optional(),
  executablePath: z.string().trim().min(1).max(4096).nullable().optional(),
  commandArgs: z.array(z.string().max(10_000)).max(200).nullable().optional(),
};
const partialAgentFields = Object.fromEntries(
  Object.entries(agentFields).map(([key, schema]) => [key, schema.optional()]),
) as { [K in keyof typeof agentFields]: z.ZodOptional<(typeof agentFields)[K]> };

const connectionName = z.string().trim().min(1, 'an AI connection needs a name').max(100);
/** The key or token. Accepted on the way in only: no output schema has a field that could carry it. */
const connectionSecret = z
  .string()
  .trim()
  .min(1, 'enter the key or token')
  .max(8192)
  .refine((value) => !/\s/.test(value), 'a key or token has no spaces or line breaks');
/** A gateway or local server (OpenAI-compatible, Anthropic, Gemini); http(s) only, no credentials in it. */
const connectionBaseUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// address without a query, fragment or credentials');
const connectionFields = {
  name: connectionName,
  provider: z.enum(connectionProviders),
  method: z.enum(connectionMethods),
  baseUrl: connectionBaseUrl.nullable().optional(),
  ownership: z.enum(connectionOwnerships),
  agentScope: z.enum(connectionAgentScopes),
  /** With agentScope `chosen`: the agents that may use it. */
  agentIds: z.array(entityId).max(1000).optional(),
};

function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export const channels = {
  getSystemInfo: channel(
    noInput,
    z.object({
      appVersion: z.string(),
      transport: z.enum(['electron', 'browser']),
      dataDir: z.string(),
      ledgerPath: z.string(),
      platform: z.string(),
      homeDir: z.string(),
    }),
  ),

  /**
   * Where the console writes its log (a rotating file in the data directory), for Settings → About and
   * the error pages to name. Null when this console writes no log file (its log is on stderr only).
   */
  getLogInfo: channel(noInput, z.object({ logDir: z.string().nullable(), logFile: z.string().nullable() })),
  /** Opens the log's folder in the operator's file manager (on the machine the console runs on). */
  openLogFolder: channel(noInput, z.object({ path: z.string(), opened: z.boolean() })),
  /**
   * A page crashed while rendering (its error boundary caught it): the error goes to the console's log,
   * which the page then names. Bounded in size and, by the core, in rate.
   */
  reportRendererError: channel(
    z.strictObject({
      message: z.string().max(2000),
      stack: z.string().max(20_000).optional(),
      componentStack: z.string().max(20_000).optional(),
      route: z.string().max(1000),
    }),
    z.object({ logged: z.boolean() }),
  ),

  listProjects: channel(noInput, z.array(projectSchema)),
  addProject: channel(
    z.strictObject({ path: z.string().trim().min(1).max(4096), name: z.string().trim().min(1).max(200).optional() }),
    projectSchema,
  ),
  removeProject: channel(z.strictObject({ projectId: entityId }), z.object({ projectId: z.string() })),
  browseDirectory: channel(z.strictObject({ path: z.string().max(4096).optional() }).optional(), directoryListingSchema),

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

  getCatalog: channel(noInput, z.object({ providers: z.array(catalogProviderSchema) })),

  listAgents: channel(noInput, z.array(agentSchema)),
  getAgent: channel(z.strictObject({ agentId: entityId }), agentSchema),
  /**
   * A new agent. With `connectionId` it is bound to that AI connection from the start; a connection
   * shared with chosen agents is shared with the new one too (choosing it here is the operator saying so).
   */
  createAgent: channel(z.strictObject({ ...agentFields, connectionId: entityId.nullable().optional() }), agentSchema),
  /**
   * New agent's preview: the admission rules a first run of this agent would meet, checked on the
   * unsaved fields (and the AI connection it would be bound to). Saves and starts nothing.
   */
  checkAgentDraft: channel(z.strictObject({ ...agentFields, connectionId: entityId.nullable().optional() }), agentTestResultSchema),
  updateAgent: channel(z.strictObject({ agentId: entityId, ...partialAgentFields }), agentSchema),
  deleteAgent: channel(z.strictObject({ agentId: entityId }), z.object({ agentId: z.string() })),
  listEnvironments: channel(noInput, z.array(environmentSchema)),
  /**
   * The agent's Test: the admission rules (AI connection required, sandbox, launch profile) checked
   * without starting anything. Records the agent's verification too.
   */
  testAgent: channel(z.strictObject({ agentId: entityId }), agentTestResultSchema),
  /**
   * Verification: like testAgent, but a refused verification is not re-attempted until the agent's
   * configuration (its configRevision) changes; it answers the recorded state instead.
   */
  verifyAgent: channel(z.strictObject({ agentId: entityId }), agentSchema),
  /**
   * The agent's CLI version: runs its executable with `--version` (at most 10 s, in a confined
   * environment with no secrets) and compares it with the catalog's testedVersion. For the agent page.
   */
  getAgentCliVersion: channel(z.strictObject({ agentId: entityId }), agentCliVersionSchema),
  /** Binds an agent to an AI connection it may use (null unbinds). The agent's AI connection picker. */
  setAgentConnection: channel(z.strictObject({ agentId: entityId, connectionId: entityId.nullable() }), agentSchema),

  listConnections: channel(noInput, z.array(aiConnectionSchema)),
  /**
   * The connections an agent may use (allowed for it, of a provider its CLI speaks, not revoked or
   * expired), plus the one it is bound to whatever its state: what the picker lists.
   */
  listConnectionsForAgent: channel(z.strictObject({ agentId: entityId }), z.array(aiConnectionSchema)),
  createConnection: channel(z.strictObject({ ...connectionFields, secret: connectionSecret }), aiConnectionSchema),
  /** Every field but the id is optional; an absent secret keeps the stored one. `revoked` retires it (or brings it back). */
  updateConnection: channel(
    z.strictObject({
      connectionId: entityId,
      name: connectionName.optional(),
      provider: z.enum(connectionProviders).optional(),
      method: z.enum(connectionMethods).optional(),
      secret: connectionSecret.optional(),
      baseUrl: connectionBaseUrl.nullable().optional(),
      ownership: z.enum(connectionOwnerships).optional(),
      agentScope: z.enum(connectionAgentScopes).optional(),
      agentIds: z.array(entityId).max(1000).optional(),
      revoked: z.boolean().optional(),
    }),
    aiConnectionSchema,
  ),
  /** Agents bound to it are unbound (their next runs in a sandbox are refused until they choose another). */
  deleteConnection: channel(z.strictObject({ connectionId: entityId }), z.object({ connectionId: z.string() })),
  /** Checks the key's shape and, with a base URL, the provider's models endpoint there; the result is stored. */
  testConnection: channel(z.strictObject({ connectionId: entityId }), connectionTestResultSchema),
  /** Where secrets are kept at rest, for the AI connections pane to say plainly. */
  getVaultInfo: channel(noInput, vaultInfoSchema),

  listRuns: channel(
    z
      .strictObject({
        status: z.enum(runStatuses).optional(),
        agentId: entityId.optional(),
        projectId: entityId.optional(),
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
  sendRunInput: channel(z.strictObject({ runId: entityId, data: z.string().min(1).max(64 * 1024) }), z.object({ accepted: z.boolean() })),
  resizeRun: channel(
    z.strictObject({ runId: entityId, cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }),
    z.object({ accepted: z.boolean() }),
  ),
  /**
   * Opens a live output stream to the calling client: a replay from the ledger (from the start, from
   * an offset, or the tail), then live output, as `runOutput` / `runOutputSkipped` events, with
   * `runOutputAttempt` where an attempt begins. The client acknowledges bytes once its terminal has
   * parsed them.
   */
  openRunOutput: channel(
    z.strictObject({ runId: entityId, from: z.union([z.literal('start'), z.literal('tail'), z.number().int().min(0)]) }),
    z.object({ subscriptionId: z.string(), fromOffset: z.number().int().min(0), totalBytes: z.number().int().min(0) }),
  ),
  ackRunOutput: channel(z.strictObject({ subscriptionId: z.string().max(100), bytes: z.number().int().min(0) }), z.object({ ok: z.boolean() })),
  closeRunOutput: channel(z.strictObject({ subscriptionId: z.string().max(100) }), z.object({ ok: z.boolean() })),

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

/**
 * Pushed events. They carry just enough for the renderer to know what to refetch; the data itself
 * comes through request channels (TanStack Query owns it).
 */
export const events = {
  projectsChanged: z.object({}),
  tasksChanged: z.object({}),
  noticesChanged: z.object({ open: z.number().int().min(0) }),
  agentsChanged: z.object({}),
  /** AI connections were created, changed, tested or deleted: refetch listConnections. */
  connectionsChanged: z.object({}),
  runsChanged: z.object({ runIds: z.array(z.string()) }),
  /** New timeline entries for a run: refetch them with listRunEvents. */
  runTimeline: z.object({ runId: z.string() }),
  /** Live output for one subscription (binary on the wire). */
  runOutput: z.object({ subscriptionId: z.string(), runId: z.string(), offset: z.number(), bytes: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'bytes') }),
  /** The viewer fell behind: these bytes were skipped (they are in the ledger); the tail follows. */
  runOutputSkipped: z.object({
    subscriptionId: z.string(),
    runId: z.string(),
    fromOffset: z.number(),
    toOffset: z.number(),
    skippedBytes: z.number(),
  }),
  /**
   * An attempt of the run begins at `offset`: sent in the subscription's order, before the first byte
   * at `offset` (and after a skip past it), so the terminal draws the separator where it belongs. An
   * attempt with no output begins where the next one's output does (or at the end so far).
   */
  runOutputAttempt: attemptStartSchema.extend({ subscriptionId: z.string(), runId: z.string(), offset: z.number() }),
} as const;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type EventName = keyof typeof events;

export type ChannelInput<K extends ChannelName> = z.input<Channels[K]['input']>;
export type ChannelParsedInput<K extends ChannelName> = z.output<Channels[K]['input']>;
export type ChannelOutput<K extends ChannelName> = z.output<Channels[K]['output']>;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

export function isChannelName(value: unknown): value is ChannelName {
  return typeof value === 'string' && Object.hasOwn(channels, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

type RequestMethod<K extends ChannelName> = undefined extends ChannelInput<K>
  ? (input?: ChannelInput<K>) => Promise<ChannelOutput<K>>
  : (input: ChannelInput<K>) => Promise<ChannelOutput<K>>;

export type EventHandler<E extends EventName> = (payload: EventPayload<E>) => void;

/**
 * What the renderer talks to: one method per channel, plus event subscription. The preload bridge
 * implements it in Electron, the WebSocket client in the browser host; the renderer cannot tell which.
 */
export type OperatorApi = { [K in ChannelName]: RequestMethod<K> } & {
  subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void;
};

/** The answer to one request, on either transport. */
export type ResponseEnvelope =
  | { ok: true; value: unknown }
  | { ok: false; error: import('./errors').OperatorErrorShape };

export type TransportState = 'connecting' | 'connected' | 'reconnecting';

/** The API plus the state of the transport under it, for the status bar. */
export type OperatorClient = OperatorApi & {
  transportState(): TransportState;
  onTransportState(listener: (state: TransportState) => void): () => void;
};

/**
 * What the Electron preload exposes as `window.operator`. Its methods resolve to the envelope rather
 * than throwing, because an Error crossing contextBridge keeps only its message: the code, reason and
 * action link would be lost. renderer/api/preload-client.ts turns this into an OperatorClient.
 * There is deliberately no generic invoke: only the contract's channels exist.
 */
export type PreloadBridge = { [K in ChannelName]: (input?: unknown) => Promise<ResponseEnvelope> } & {
  subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void;
  transportState(): TransportState;
  onTransportState(listener: (state: TransportState) => void): () => void;
};

/** The name of the preload bridge on `window`. */
export const preloadBridgeKey = 'operator';

/** The IPC channel a request channel travels on, and the one pushed events travel on. */
export function ipcChannelFor(name: ChannelName): `operator:${ChannelName}` {
  return `operator:${name}`;
}
export const ipcEventChannel = 'operator:event';
