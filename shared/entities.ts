import { z } from 'zod';
import { runLandingSchema } from './landing';

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
  /** `sandboxed`: the OS sandbox (bubblewrap, Seatbelt). `local`: none; the console cannot limit its network. */
  kind: z.enum(environmentKinds),
  /**
   * What a sandboxed run may reach: `provider-only` the model's API (the AI connection's base URL or
   * the CLI's own) and the allowed hosts, through the console's egress proxy; `none` nothing at all,
   * not even the model; `open` anything. A local environment's is always `open`.
   */
  networkMode: z.enum(networkModes),
  requiresConnection: z.boolean(),
  /** `host` or `host:port` entries (shared/allowed-hosts.ts) a provider-only run may reach too. */
  allowedHosts: z.array(z.string()),
  /** Local and Sandboxed, which every console has: editable, never deleted. */
  builtIn: z.boolean(),
  /**
   * The SSH host (Settings → Hosts) its runs are meant for; null: this machine. Runs on a host are not
   * executed yet: admission refuses them, saying so (issue 28).
   */
  hostId: z.string().nullable(),
});
export type Environment = z.infer<typeof environmentSchema>;

export const homeModes = ['isolated', 'preconfigured'] as const;

export const verificationStates = ['ok', 'refused', 'unverified'] as const;

export const agentVerificationSchema = z.object({
  state: z.enum(verificationStates),
  /** The refusal's code and reason, e.g. configuration_incomplete / ai_connection_required. */
  code: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  actionUrl: z.string().optional(),
  /** A digest of everything admission looks at for this agent; verification waits for it to change. */
  configRevision: z.string(),
  checkedAt: timestamp.nullable(),
});
export type AgentVerification = z.infer<typeof agentVerificationSchema>;

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
  /**
   * The agent's verification: the admission rules checked without starting anything. A refused
   * verification is not re-attempted until `configRevision` changes (a new binding, home mode,
   * environment, or a change to its connection). Absent only from agents built outside the core.
   */
  verification: agentVerificationSchema.optional(),
});
export type Agent = z.infer<typeof agentSchema>;

/** The agent's Test probe: admission's answer, without starting anything. */
export const agentTestResultSchema = z.object({
  ok: z.boolean(),
  checkedAt: timestamp,
  message: z.string(),
  code: z.string().optional(),
  reason: z.string().optional(),
  actionUrl: z.string().optional(),
});
export type AgentTestResult = z.infer<typeof agentTestResultSchema>;

/**
 * What the agent's CLI says its version is (`<cli> --version`), beside the version the console's
 * adapter was checked against (the catalog's testedVersion). `version` is null when the CLI could not
 * be run or printed no version; `message` says which, in words for the agent page.
 */
export const agentCliVersionSchema = z.object({
  version: z.string().nullable(),
  testedVersion: z.string().nullable(),
  message: z.string(),
});
export type AgentCliVersion = z.infer<typeof agentCliVersionSchema>;

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

export const connectionOwnerships = ['personal', 'shared'] as const;
export const connectionAgentScopes = ['all', 'chosen'] as const;
/**
 * How secrets are kept at rest: a key file beside the ledger; the console service's key that the
 * desktop app keeps sealed in the OS keychain and hands to the service (`app-key-aes-256-gcm`); or, from
 * before the service, the desktop app's OS keychain directly (`electron-safe-storage`).
 */
export const vaultKinds = ['aes-256-gcm-key-file', 'electron-safe-storage', 'app-key-aes-256-gcm'] as const;
export type VaultKind = (typeof vaultKinds)[number];

/** The stored answer of a connection's Test. */
export const connectionTestResultSchema = z.object({
  ok: z.boolean(),
  checkedAt: timestamp,
  message: z.string(),
  /** Why it failed: invalid_key_shape, auth_required, unreachable, unexpected_response, ... */
  code: z.string().optional(),
});
export type ConnectionTestResult = z.infer<typeof connectionTestResultSchema>;

/** Metadata only: the secret never leaves the core; `secretHint` is the provider and last 4 characters. */
export const aiConnectionSchema = z.object({
  id,
  name: z.string(),
  provider: z.enum(connectionProviders),
  method: z.enum(connectionMethods),
  baseUrl: z.string().nullable(),
  ownership: z.enum(connectionOwnerships),
  agentScope: z.enum(connectionAgentScopes),
  /** The agents that may use it when `agentScope` is `chosen` (empty for `all`). */
  agentIds: z.array(z.string()),
  status: z.enum(connectionStatuses),
  /** e.g. "OpenAI …a1b2": enough to recognise the key, never enough to use it. */
  secretHint: z.string().nullable(),
  /** How its secret is kept at rest; null when it has none. */
  storage: z.enum(vaultKinds).nullable(),
  lastTest: connectionTestResultSchema.nullable(),
  /** True for the moment an update is being written: runs admitted then wait and retry. */
  updating: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type AiConnection = z.infer<typeof aiConnectionSchema>;

/** Where connection secrets are kept, said plainly in the AI connections pane. */
export const vaultInfoSchema = z.object({
  kind: z.enum(vaultKinds),
  /** False when the store protects nothing (Electron's `basic_text` backend on Linux). */
  protects: z.boolean(),
  warning: z.string().optional(),
  description: z.string(),
});
export type VaultInfo = z.infer<typeof vaultInfoSchema>;

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
  /** The project's setup command runs in the view; the agent has not started. */
  'setting_up',
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
  archived: z.boolean(),
  /** Where the run's work stands (not landed, landed, pushed, discarded) and its task root's size. */
  landing: runLandingSchema,
  /**
   * A run on an SSH host whose host cannot be reached: since when. Whether it still runs there is not
   * known, so it reads Unverifiable (issue 28); null while the host answers, and for runs on this machine.
   */
  hostUnreachableSince: timestamp.nullable().default(null),
  /**
   * A run on an SSH host whose work could not be brought back when its agent ended: since when its
   * work is on the host only (its notice offers Fetch the work again). Null once it came back, and for
   * every other run.
   */
  hostWorkLeftSince: timestamp.nullable().default(null),
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
  /** The environment it is about (a request its rules blocked), or null. */
  environmentId: z.string().nullable(),
  status: z.enum(noticeStatuses),
  createdAt: timestamp,
  resolvedAt: timestamp.nullable(),
  /** What fixed it, in words ("Codex now uses the AI connection “Team key”."); null while open or when not known. */
  resolution: z.string().nullable(),
  /** The failure's code and reason (e.g. configuration_incomplete / ai_connection_required). */
  code: z.string().nullable(),
  reason: z.string().nullable(),
  /**
   * The runs this notice stands for (one notice per agent and cause: later refusals join it). Run
   * again starts each of their tasks once, after the notice has resolved.
   */
  runIds: z.array(z.string()),
  /** True once the cause is gone and the refused task(s) have not been started again yet. */
  canRunAgain: z.boolean(),
  /** The runs Run again started (empty until it was used). */
  rerunRunIds: z.array(z.string()),
});
export type Notice = z.infer<typeof noticeSchema>;

export const failureSchema = z.object({
  code: z.string(),
  message: z.string(),
  reason: z.string().optional(),
  actionUrl: z.string().optional(),
});

/**
 * Why an attempt started, recorded by what started it (never inferred from the attempt before):
 * `first` the run's first start; `retry` the retry policy after the previous attempt failed;
 * `resume` the operator's Resume; `follow_up` a follow-up turn the operator asked for (a Resume with
 * a prompt, as landing's "Ask the agent to resolve" is).
 */
export const attemptCauses = ['first', 'retry', 'resume', 'follow_up'] as const;
export type AttemptCause = (typeof attemptCauses)[number];

export const attemptSchema = z.object({
  number: z.number().int().min(1),
  /** Null for an attempt recorded before causes were, whose cause the ledger's history did not show. */
  cause: z.enum(attemptCauses).nullable(),
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled', 'stranded']),
  failureCode: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** When a failed attempt will be retried (after backoff or a quota reset). */
  retryAt: timestamp.nullable(),
  startedAt: timestamp.nullable(),
  endedAt: timestamp.nullable(),
  /**
   * Where the attempt's output starts in the run's byte stream (offsets count across attempts), or
   * null while it has produced none. The ledger keeps only the PTY's bytes; this is how a reader of
   * them knows which attempt wrote what.
   */
  outputOffset: z.number().int().min(0).nullable(),
});
export type Attempt = z.infer<typeof attemptSchema>;

/**
 * An attempt beginning in a run's output, as a terminal marks it (the separator line between
 * attempts): the attempt, the one before it (how it ended and when, for "after process_exit, 3 s
 * later"), and how many attempts the run's profile allows (null when the profile is gone).
 */
export const attemptStartSchema = z.object({
  attempt: attemptSchema,
  previous: attemptSchema.nullable(),
  maxAttempts: z.number().int().min(1).nullable(),
});
export type AttemptStart = z.infer<typeof attemptStartSchema>;

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

/** The layers a run's environment variables come from, weakest first: a later layer overrides an earlier one. */
export const variableLayers = ['project', 'agent', 'task'] as const;
export type VariableLayer = (typeof variableLayers)[number];

/** One variable of a layer as the renderer sees it: a secret's value never leaves the core. */
export const layerVariableSchema = z.object({
  name: z.string(),
  secret: z.boolean(),
  /** Null for a secret. */
  value: z.string().nullable(),
});
export type LayerVariable = z.infer<typeof layerVariableSchema>;

/** A variable the console sets for every run itself, which no layer may set: its name and what it is. */
export const consoleVariableSchema = z.object({ name: z.string(), setBy: z.string() });
export type ConsoleVariable = z.infer<typeof consoleVariableSchema>;

/** What a project prepares in each new run's view before the agent starts (Settings → Projects → the project). */
export const projectSetupSchema = z.object({
  projectId: id,
  /** Globs, relative to the project folder, of the (usually ignored) files each run's view gets a copy of. */
  copyPatterns: z.array(z.string()),
  /** Runs in the view, inside the run's sandbox and network rules, before the agent; null for none. */
  setupCommand: z.string().nullable(),
});
export type ProjectSetup = z.infer<typeof projectSetupSchema>;

export const setupPhaseStatuses = ['running', 'succeeded', 'failed', 'cancelled'] as const;

/** What a run's preparation did, as its detail shows it (the latest preparation's). */
export const runSetupSchema = z.object({
  copiedFiles: z.array(z.object({ path: z.string(), bytes: z.number().int().min(0) })),
  /** Files a pattern matched that were not copied, and why (a link out of the project, a .git path, ...). */
  skippedFiles: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** The run's variables, merged: each from the strongest layer that sets it, with the layers it overrode. */
  variables: z.array(
    z.object({
      name: z.string(),
      source: z.enum(variableLayers),
      secret: z.boolean(),
      /** Null for a secret. */
      value: z.string().nullable(),
      overrides: z.array(z.enum(variableLayers)),
    }),
  ),
  setupCommand: z.string().nullable(),
  /** The setup command's run; null when there was none (or it has not started). */
  setup: z
    .object({
      status: z.enum(setupPhaseStatuses),
      attempt: z.number().int().min(1),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      startedAt: timestamp,
      endedAt: timestamp.nullable(),
    })
    .nullable(),
});
export type RunSetup = z.infer<typeof runSetupSchema>;

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
    /** Who the sandboxed run's programs are, when not the operator (the console runs as root): e.g. nobody. */
    runsAs: z.string().nullable(),
    /** Whether a seccomp filter refuses the system calls an agent never needs. */
    syscallFilter: z.boolean(),
    writableRoots: z.array(z.string()),
    /** The SSH host the run executes on (issue 28): its writable roots are there; null for this machine. */
    host: z.string().nullable().default(null),
  }),
  canStop: z.boolean(),
  canResume: z.boolean(),
  canSendInput: z.boolean(),
  /** The owner-action notice raised for this run (a refusal, a missing CLI, ...), shown inline. */
  notice: noticeSchema.nullable(),
  /** The AI connection the run was admitted with (metadata only), when it used one. */
  connection: z.object({ id: z.string(), name: z.string(), provider: z.enum(connectionProviders) }).nullable(),
  /** What preparation did: copied files, merged variables, the setup command. Null before preparation. */
  setup: runSetupSchema.nullable(),
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

/**
 * A run's Network panel: every host the run asked the egress proxy for, with its port, how often,
 * first and last, and whether it was let through. Only a provider-only sandboxed run has a proxy;
 * for the others `observed` is false and the panel says why there is nothing to list.
 */
export const runNetworkSchema = z.object({
  environmentKind: z.enum(environmentKinds),
  networkMode: z.enum(networkModes),
  /** True when the console saw the run's connections (a provider-only run, through its proxy). */
  observed: z.boolean(),
  hosts: z.array(
    z.object({
      /** As the agent wrote it, made safe to show (shared/allowed-hosts.ts displayHost). */
      host: z.string(),
      port: z.number().int(),
      allowed: z.boolean(),
      count: z.number().int().min(1),
      firstAt: timestamp,
      lastAt: timestamp,
    }),
  ),
  /** More hosts than the panel lists were asked for. */
  truncated: z.boolean(),
});
export type RunNetwork = z.infer<typeof runNetworkSchema>;

export const runDiffSchema = z.object({
  baseRevision: z.string().nullable(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(['added', 'modified', 'deleted', 'renamed']),
      oldPath: z.string().optional(),
      /** Lines added and removed; null for a binary file. */
      additions: z.number().int().min(0).nullable(),
      deletions: z.number().int().min(0).nullable(),
    }),
  ),
  unifiedDiff: z.string(),
  truncated: z.boolean(),
  /** Folders holding a repository the agent made inside the view: never entered, so not in the diff. */
  nestedRepositories: z.array(z.string()),
  /**
   * The run's files were removed (cleaned up, discarded or archived) at this time: this is the summary
   * the ledger kept of its changes then (the file list and counts; the unified diff as far as it was kept).
   */
  filesRemovedAt: timestamp.nullable(),
});
export type RunDiff = z.infer<typeof runDiffSchema>;
