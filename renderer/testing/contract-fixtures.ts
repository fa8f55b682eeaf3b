import type { ChannelParsedInput } from '../../shared/contract';
import {
  agentSchema,
  aiConnectionSchema,
  attemptSchema,
  catalogProviderSchema,
  environmentSchema,
  noticeSchema,
  runDetailSchema,
  runDiffSchema,
  runNetworkSchema,
  runSummarySchema,
  type Agent,
  type AiConnection,
  type Attempt,
  type CatalogProvider,
  type Environment,
  type Notice,
  type RunDetail,
  type RunDiff,
  type RunNetwork,
  type RunSummary,
} from '../../shared/entities';
import {
  cleanupCandidateSchema,
  diskUsageSchema,
  landingPlanSchema,
  ledgerSpaceSchema,
  runComparisonSchema,
  runLandingSchema,
  type CleanupCandidate,
  type DiskUsage,
  type LandingPlan,
  type LedgerSpace,
  type RunComparison,
  type RunLanding,
} from '../../shared/landing';
import { actionRoute } from '../../shared/routes';

/**
 * Domain objects for component tests, as the core would send them: each is built from plain
 * defaults plus the test's changes and parsed with the contract's schema, so a fixture the core
 * could never send fails where it is made.
 */

const createdAt = '2026-03-02T09:00:00.000Z';

export function aRun(changes: Partial<RunDetail> = {}): RunDetail {
  return runDetailSchema.parse({
    id: 'run_1',
    taskId: 'task_1',
    taskTitle: 'Write the refund module',
    agentId: 'agent_1',
    agentName: 'Codex writer',
    projectId: 'prj_1',
    status: 'succeeded',
    attempt: 1,
    createdAt,
    startedAt: '2026-03-02T09:00:01.000Z',
    endedAt: '2026-03-02T09:02:01.000Z',
    archived: false,
    hostUnreachableSince: null,
    hostWorkLeftSince: null,
    landing: notLanded,
    providerId: 'codex',
    model: 'gpt-5-codex',
    profileId: 'default',
    profileRevision: 'f00dfeed0123456789',
    configFingerprint: null,
    environmentId: 'env_local',
    homeMode: 'preconfigured',
    cwd: '/data/tasks/run_1/view',
    taskRoot: '/data/tasks/run_1',
    baseRevision: '0123456789abcdef0123456789abcdef01234567',
    failure: null,
    attempts: [anAttempt({ number: 1, status: 'succeeded', exitCode: 0 })],
    locators: [],
    submission: null,
    outputBytes: 2048,
    confinement: {
      environmentName: 'Local',
      environmentKind: 'local',
      sandbox: 'none',
      network: 'open',
      homeMode: 'preconfigured',
      runsAs: null,
      syscallFilter: false,
      writableRoots: ['/data/tasks/run_1/view', '/data/tasks/run_1/tmp'],
    },
    canStop: false,
    canResume: false,
    canSendInput: false,
    notice: null,
    connection: null,
    setup: null,
    ...changes,
  });
}

export function aRunSummary(changes: Partial<RunSummary> = {}): RunSummary {
  const { id, taskId, taskTitle, agentId, agentName, projectId, status, attempt, createdAt: created, startedAt, endedAt, archived, landing, hostUnreachableSince, hostWorkLeftSince } = aRun();
  return runSummarySchema.parse({
    ...{ id, taskId, taskTitle, agentId, agentName, projectId, status, attempt, createdAt: created, startedAt, endedAt, archived, landing, hostUnreachableSince, hostWorkLeftSince },
    ...changes,
  });
}

export function anAttempt(changes: Partial<Attempt> = {}): Attempt {
  return attemptSchema.parse({
    number: 1,
    cause: (changes.number ?? 1) === 1 ? 'first' : 'retry',
    status: 'running',
    failureCode: null,
    exitCode: null,
    signal: null,
    retryAt: null,
    startedAt: '2026-03-02T09:00:01.000Z',
    endedAt: null,
    outputOffset: 0,
    ...changes,
  });
}

export function aNotice(changes: Partial<Notice> = {}): Notice {
  return noticeSchema.parse({
    id: 'ntc_1',
    kind: 'run_refused',
    severity: 'error',
    title: 'Codex writer needs an AI connection',
    message: 'Choose an AI connection for Codex writer: a sandboxed run cannot use your own login.',
    actionUrl: actionRoute({ kind: 'agent-ai-connection', agentId: 'agent_1' }),
    actionLabel: 'Choose an AI connection',
    runId: 'run_1',
    agentId: 'agent_1',
    taskId: 'task_1',
    environmentId: null,
    status: 'open',
    createdAt,
    resolvedAt: null,
    resolution: null,
    code: 'configuration_incomplete',
    reason: 'ai_connection_required',
    runIds: ['run_1'],
    canRunAgain: false,
    rerunRunIds: [],
    ...changes,
  });
}

export function aConnection(changes: Partial<AiConnection> = {}): AiConnection {
  return aiConnectionSchema.parse({
    id: 'con_1',
    name: 'Team key',
    provider: 'openai',
    method: 'api_key',
    baseUrl: null,
    ownership: 'shared',
    agentScope: 'all',
    agentIds: [],
    status: 'connected',
    secretHint: 'OpenAI …a1b2',
    storage: 'aes-256-gcm-key-file',
    lastTest: null,
    updating: false,
    createdAt,
    updatedAt: createdAt,
    ...changes,
  });
}

/** What the core answers to createConnection: the connection as asked for, with an id and a key hint. */
export function createdConnection(input: ChannelParsedInput<'createConnection'>, changes: Partial<AiConnection> = {}): AiConnection {
  return aConnection({
    id: 'con_new',
    name: input.name,
    provider: input.provider,
    method: input.method,
    baseUrl: input.baseUrl ?? null,
    ownership: input.ownership,
    agentScope: input.agentScope,
    agentIds: input.agentIds ?? [],
    secretHint: `…${input.secret.slice(-4)}`,
    ...changes,
  });
}

export function anAgent(changes: Partial<Agent> = {}): Agent {
  return agentSchema.parse({
    id: 'agent_1',
    name: 'Codex writer',
    providerId: 'codex',
    model: 'gpt-5-codex',
    profileId: 'default',
    capacity: 1,
    homeMode: 'preconfigured',
    environmentId: 'env_local',
    connectionId: null,
    executablePath: null,
    commandArgs: null,
    profileRevision: 'f00dfeed',
    createdAt,
    verification: { state: 'ok', configRevision: 'rev_1', checkedAt: createdAt },
    ...changes,
  });
}

/** What the core answers to createAgent: the agent as asked for, with an id. */
export function createdAgent(input: ChannelParsedInput<'createAgent'>): Agent {
  return anAgent({
    id: 'agent_new',
    name: input.name,
    providerId: input.providerId,
    model: input.model,
    profileId: input.profileId,
    capacity: input.capacity ?? 1,
    homeMode: input.homeMode ?? 'preconfigured',
    environmentId: input.environmentId ?? 'env_local',
    executablePath: input.executablePath ?? null,
    commandArgs: input.commandArgs ?? null,
    connectionId: input.connectionId ?? null,
  });
}

export function aProvider(changes: Partial<CatalogProvider> = {}): CatalogProvider {
  return catalogProviderSchema.parse({
    id: 'codex',
    displayName: 'Codex',
    executable: 'codex',
    testedVersion: '0.50.0',
    homeVariable: 'CODEX_HOME',
    supportsResume: true,
    connectionProviders: ['openai', 'openrouter', 'custom'],
    models: [{ id: 'gpt-5-codex', label: 'GPT-5 Codex' }],
    profiles: [{ id: 'default', label: 'Full auto in the task folder', revision: 'p1', maxAttempts: 3, argsTemplate: null }],
    ...changes,
  });
}

export function anEnvironment(changes: Partial<Environment> = {}): Environment {
  return environmentSchema.parse({
    id: 'env_local',
    name: 'Local',
    kind: 'local',
    networkMode: 'open',
    requiresConnection: false,
    allowedHosts: [],
    builtIn: true,
    hostId: null,
    ...changes,
  });
}

export function aRunDiff(changes: Partial<RunDiff> = {}): RunDiff {
  return runDiffSchema.parse({
    baseRevision: '0123456789abcdef0123456789abcdef01234567',
    files: [],
    unifiedDiff: '',
    truncated: false,
    nestedRepositories: [],
    filesRemovedAt: null,
    ...changes,
  });
}

/** A run's Network panel as the core answers for a local run (the default run's): nothing it could see. */
export function aRunNetwork(changes: Partial<RunNetwork> = {}): RunNetwork {
  return runNetworkSchema.parse({
    environmentKind: 'local',
    networkMode: 'open',
    observed: false,
    hosts: [],
    truncated: false,
    ...changes,
  });
}

/** A run whose work is still only in its own store: not landed, nothing pushed, files on disk. */
export const notLanded = { state: 'not_landed', landed: null, pushed: null, discardedAt: null, filesRemovedAt: null, diskBytes: null } as const;

/**
 * The dry run for a run that committed its work and lands cleanly in its base branch `main` by
 * fast-forward: nothing uncommitted, two commits not landed, `main` not checked out, no remote.
 */
export function aLandingPlan(changes: Partial<LandingPlan> = {}): LandingPlan {
  return landingPlanSchema.parse({
    runId: 'run_1',
    available: true,
    blockedBy: null,
    holdings: {
      uncommittedFiles: [],
      unlandedCommits: [
        { sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', subject: 'Add the refund module' },
        { sha: 'b2c3d4e5f60718293a4b5c6d7e8f901234567890', subject: 'Test refunds' },
      ],
      diskBytes: 3 * 1024 * 1024,
    },
    commitMessage: 'Write the refund module\n\nAdded src/refund.ts with its tests.',
    baseBranch: 'main',
    branches: ['main', 'release', 'feature/refunds'],
    target: 'main',
    targetCommit: '0123456789abcdef0123456789abcdef01234567',
    fastForward: true,
    clean: true,
    conflicts: [],
    touchedFiles: ['src/refund.ts', 'src/refund.test.ts'],
    checkout: null,
    landMessage: 'Write the refund module\n\nAdded src/refund.ts with its tests.',
    remote: null,
    pushBranch: 'console/run_1',
    pullRequests: { available: false, hint: 'Install the GitHub CLI (gh) and run gh auth login to create pull requests.' },
    ...changes,
  });
}

/** A run's landing state after it landed in `main` by squash (the default run's is `notLanded`). */
export function aRunLanding(changes: Partial<RunLanding> = {}): RunLanding {
  return runLandingSchema.parse({
    ...notLanded,
    state: 'landed',
    landed: { commit: 'c3d4e5f60718293a4b5c6d7e8f9012345678901a', target: 'main', strategy: 'squash', at: '2026-03-02T09:10:00.000Z', by: 'Ada Operator <ada@example.com>' },
    diskBytes: 3 * 1024 * 1024,
    ...changes,
  });
}

/* ---- Compare, disk and clean-up (issue 13, the renderer's "uicompare" part) ---- */

/** A landed run's landing: squashed into main. */
export function landedIn(target = 'main', changes: Partial<RunLanding> = {}): RunLanding {
  return runLandingSchema.parse({
    ...notLanded,
    state: 'landed',
    landed: { commit: 'c0ffee0123456789c0ffee0123456789c0ffee01', target, strategy: 'squash', at: '2026-03-02T10:00:00.000Z', by: 'Ada <ada@example.com>' },
    ...changes,
  });
}

/** One run of a task in Compare: a finished Codex run that changed two files. */
export function aRunComparison(changes: Partial<RunComparison> = {}): RunComparison {
  return runComparisonSchema.parse({
    runId: 'run_1',
    agentId: 'agent_1',
    agentName: 'Codex writer',
    status: 'succeeded',
    attempts: 1,
    durationMs: 120_000,
    tokens: 48_200,
    filesChanged: 2,
    linesAdded: 40,
    linesRemoved: 3,
    landing: notLanded,
    changesNote: null,
    ...changes,
  });
}

/** What the Land dialog's dry run answers for a run that lands cleanly in main, fast-forward possible. */
export function aCleanLandingPlan(changes: Partial<LandingPlan> = {}): LandingPlan {
  return landingPlanSchema.parse({
    runId: 'run_1',
    available: true,
    blockedBy: null,
    holdings: { uncommittedFiles: [], unlandedCommits: [{ sha: 'abc1234', subject: 'Add the refund module' }], diskBytes: 1_200_000 },
    commitMessage: 'Write the refund module',
    baseBranch: 'main',
    branches: ['main', 'release'],
    target: 'main',
    targetCommit: '0123456789abcdef0123456789abcdef01234567',
    fastForward: true,
    clean: true,
    conflicts: [],
    touchedFiles: ['src/refund.ts'],
    checkout: null,
    landMessage: 'Write the refund module',
    remote: null,
    pushBranch: 'console/run_1',
    pullRequests: { available: false, hint: 'Install the GitHub CLI (gh) to create pull requests.' },
    ...changes,
  });
}

/** A finished, landed run Clean up may remove without asking. */
export function aCleanupCandidate(changes: Partial<CleanupCandidate> = {}): CleanupCandidate {
  return cleanupCandidateSchema.parse({
    runId: 'run_1',
    taskTitle: 'Write the refund module',
    agentName: 'Codex writer',
    status: 'succeeded',
    landingState: 'landed',
    endedAt: '2026-03-02T09:02:01.000Z',
    holdings: { uncommittedFiles: [], unlandedCommits: [], diskBytes: 1_200_000 },
    freelyRemovable: true,
    resumable: false,
    ...changes,
  });
}

export function aLedgerSpace(changes: Partial<LedgerSpace> = {}): LedgerSpace {
  return ledgerSpaceSchema.parse({
    file: '/home/operator/.local/share/operator-console/ledger.sqlite',
    fileBytes: 1_800_000_000,
    walBytes: 0,
    reclaimableBytes: 0,
    mode: 'incremental',
    reclaiming: false,
    ...changes,
  });
}

export function aDiskUsage(changes: Partial<DiskUsage> = {}): DiskUsage {
  return diskUsageSchema.parse({
    ledger: aLedgerSpace(),
    totalBytes: 3_400_000_000,
    runsWithFiles: 2,
    largest: [
      { runId: 'run_2', taskTitle: 'Write the refund module', agentName: 'Claude writer', bytes: 2_200_000_000 },
      { runId: 'run_1', taskTitle: 'Write the refund module', agentName: 'Codex writer', bytes: 1_200_000_000 },
    ],
    measuredAt: '2026-03-02T09:05:00.000Z',
    ...changes,
  });
}
