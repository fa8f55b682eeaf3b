import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { AttentionService } from './attention/attention-service';
import { LandingService } from './landing/landing-service';
import { openInFileManager } from './file-manager';
import { noLogFile, type Logger } from './log';
import { OperatorError } from '../shared/errors';
import { ConnectionService, sharedWithEveryone } from './connections/connection-service';
import { KeyFileVault, SecretKeeper, type SecretVault } from './connections/secret-vault';
import { probeSandbox, type SandboxProbe } from './confinement/sandbox-probe';
import { ensureDataDir } from './data-dir';
import { DailyLedgerBackup } from './ledger/daily-ledger-backup';
import { isLedgerDamage, LedgerDamagedError } from './ledger/ledger-damage';
import { openLedger, type Ledger } from './ledger/ledger';
import { NoticeService } from './notices/notice-service';
import { browseDirectory } from './projects/directory-browser';
import { ProjectService } from './projects/project-service';
import { ProjectSetupService } from './projects/project-setup-service';
import { TaskService } from './tasks/task-service';
import { AgentService } from './agents/agent-service';
import { EnvironmentService } from './environments/environment-service';
import { CliVersionService } from './agents/cli-version';
import { loadProviderCatalog, profileRevision } from './providers/catalog';
import { OutputFanout } from './pty/output-fanout';
import { OutputStreams } from './runs/output-streams';
import { attemptStarts } from './runs/attempt-output';
import { AgentVerifier, agentTestResult } from './runs/agent-verification';
import { RunService } from './runs/run-service';
import { CleanupService } from './cleanup/cleanup-service';
import type { SandboxState } from './runs/admission';
import { EventHub } from './events/event-hub';
import { BudgetService } from './usage/budget-service';
import { PriceSettings } from './usage/price-settings';
import { PriceTableStore } from './usage/price-table-store';
import { buildUsageReport } from './usage/usage-report';
import { UsageService } from './usage/usage-service';
import { SearchIndexUpkeep } from './search/search-index-upkeep';
import { SearchService } from './search/search-service';
import { createRequestDispatcher, type CoreHandlers, type RequestDispatcher } from './transport/request-dispatcher';

export interface CoreOptions {
  dataDir: string;
  transport: 'electron' | 'browser';
  appVersion: string;
  log: Logger;
  /** The Electron-ABI better-sqlite3 addon, when running inside Electron. */
  sqliteNativeBinding?: string | undefined;
  /** Tests point the catalog elsewhere; the console reads resources/providers/catalog.json. */
  catalogPath?: string | undefined;
  /**
   * Where AI connection secrets are sealed. The desktop app passes its safeStorage vault (the shell
   * owns Electron); without one, the core uses AES-256-GCM with a key file in the data directory.
   */
  vault?: SecretVault | undefined;
  /**
   * The operator's environment and home as runs see them: confinement copies only an allow-list of
   * the environment, links a preconfigured home's files from the home, and hides the home inside the
   * OS sandbox. Default: this process's environment and the OS user's home. Tests pass a stand-in.
   */
  operatorEnv?: NodeJS.ProcessEnv | undefined;
  operatorHome?: string | undefined;
  /** The console's clock (tests set it near midnight to see a budget period roll over). Default: Date.now. */
  now?: (() => number) | undefined;
  /**
   * Under this many free bytes on the data directory's disk new runs are refused. Default:
   * `OPERATOR_CONSOLE_MIN_FREE_MIB` (MiB), else 256 MiB; 0 turns the rule off.
   */
  minFreeDiskBytes?: number | undefined;
  /** How often free space is looked at while a Disk full notice is open (tests shorten it). */
  diskCheckIntervalMs?: number | undefined;
  /** How long a run's failing output writes are retried before it is ended (tests shorten it). */
  outputGiveUpAfterMs?: number | undefined;
}

/** The console's core: plain Node, the same in the desktop app and the browser host. */
export interface Core {
  readonly dataDir: string;
  readonly ledger: Ledger;
  readonly events: EventHub;
  readonly runs: RunService;
  /** Finished runs' task roots: their sizes, Clean up and its policy. */
  readonly cleanup: CleanupService;
  readonly connections: ConnectionService;
  /** The price table in use (shipped, or the operator's edit): one store every cost estimate shares. */
  readonly prices: PriceTableStore;
  /** The search index's background work (catching up stored output, rebuilding a damaged index). */
  readonly searchIndex: SearchIndexUpkeep;
  readonly dispatch: RequestDispatcher;
  close(): Promise<void>;
}

/** Composes the core once at start: the ledger first, then the domain services on top of it. */
export function createCore(options: CoreOptions): Core {
  const dataDir = ensureDataDir(options.dataDir);
  const now = options.now ?? Date.now;
  // A damaged ledger is refused here (LedgerDamagedError, naming the file and its newest backup).
  const ledger = openLedger(dataDir, { nativeBinding: options.sqliteNativeBinding, now, log: options.log });
  const events = new EventHub();
  const dailyBackup = new DailyLedgerBackup({ db: ledger.db, backups: ledger.backups, log: options.log, now });
  dailyBackup.start();
  // One price table for every estimate (run usage, the Usage page, cost budgets), read when asked.
  const prices = new PriceTableStore(ledger, now);
  const projects = new ProjectService(ledger, events, options.log);
  const notices = new NoticeService(ledger, events, now);
  // Listening before anything can happen: the runs recovery strands at start-up notify too.
  const attention = new AttentionService({ ledger, events, log: options.log, now });
  const tasks = new TaskService(ledger, events);
  const catalog = loadProviderCatalog(options.catalogPath ? { path: options.catalogPath } : {});
  const agents = new AgentService(ledger, catalog, events);
  const environments = new EnvironmentService(ledger, events);
  // The key-file vault is made lazily: the desktop app needs it only to read secrets a browser host sealed.
  let keyFileVault: KeyFileVault | undefined = options.vault ? undefined : new KeyFileVault(dataDir, options.log);
  const keeper = new SecretKeeper(options.vault ?? keyFileVault!, () => (keyFileVault ??= new KeyFileVault(dataDir, options.log)));
  const connections = new ConnectionService({ ledger, catalog, events, keeper, log: options.log });
  // Secret variables are sealed with the same vault as connection keys.
  const projectSetup = new ProjectSetupService(ledger, events, keeper);
  // Viewers are told where each attempt begins, so a terminal can mark it; the ledger keeps only the PTY's bytes.
  const fanout = new OutputFanout({ output: ledger.output, log: options.log, attemptStarts: (runId) => attemptStarts(ledger, catalog, runId) });
  let sandbox: SandboxState | null = null;
  let probe: SandboxProbe | null = null;
  let closed = false;
  // Probed once, off the start-up path: a sandboxed run admitted before the answer waits for it at
  // launch. The seccomp filter the sandboxes load is written into the data directory's sandbox folder.
  const probed: Promise<SandboxProbe | null> = probeSandbox({ stateDir: path.join(dataDir, 'sandbox'), operatorHome: options.operatorHome ?? homedir() }).then(
    (answer) => {
      probe = answer;
      sandbox = { available: answer.available, reason: answer.reason, hint: answer.hint };
      if (!answer.available) options.log.warn('OS sandbox unavailable', { reason: answer.reason });
      return answer;
    },
    (error: unknown) => {
      options.log.error('sandbox probe failed', { error: String(error) });
      sandbox = { available: false, reason: `The sandbox probe failed: ${String(error)}`, hint: undefined };
      return null;
    },
  );
  const operatorHome = options.operatorHome ?? homedir();
  const cliVersions = new CliVersionService({ catalog, operatorEnv: options.operatorEnv ?? process.env, log: options.log });
  const budgets = new BudgetService({ ledger, events, prices, log: options.log, now });
  const runs = new RunService({
    ledger,
    catalog,
    events,
    notices,
    connections,
    projectSetup,
    fanout,
    dataDir,
    log: options.log,
    sandbox: () => sandbox,
    sandboxProbe: { current: () => probe, ready: () => probed },
    operatorEnv: options.operatorEnv,
    operatorHome,
    budgets,
    now,
    minFreeDiskBytes: options.minFreeDiskBytes ?? minFreeDiskBytesFromEnv(process.env),
    diskCheckIntervalMs: options.diskCheckIntervalMs,
    outputGiveUpAfterMs: options.outputGiveUpAfterMs,
  });
  const cleanup = new CleanupService({ ledger, workspace: runs.workspace, events, log: options.log, canResume: (runId) => runs.canResume(runId) });
  // A run's task root is measured when it ends; the policy is applied now and every hour.
  runs.onEnded((runId) => cleanup.runEnded(runId));
  cleanup.start();
  const landing = new LandingService({ ledger, runs, notices, log: options.log, operatorEnv: options.operatorEnv ?? process.env });
  const verifier = new AgentVerifier(ledger, { admit: (agent) => runs.admit(agent), configRevision: (agent) => runs.admissionRevision(agent) }, options.log);
  /**
   * After anything admission looks at changed (an agent, its binding, a connection, the sandbox): the
   * agents are verified again and notices whose cause is gone resolve themselves.
   */
  const reviewAgents = (agentIds?: string[]) => {
    verifier.reverify(agentIds ?? ledger.agents.list().map((agent) => agent.id));
    runs.reviewNotices(agentIds);
  };
  // A connection change can fix an agent that is not bound to it yet (one created for it, a revoked
  // one brought back), so every open admission notice is looked at again.
  connections.onChange((change) => {
    verifier.reverify(change.agentIds);
    runs.reviewNotices();
  });
  // An environment's kind and connection rule are part of its agents' admission: they are looked at again.
  // A request it blocked may be allowed now: its notices are looked at again.
  environments.onChange((change) => {
    if (change.agentIds.length > 0) reviewAgents(change.agentIds);
    const environmentId = change.after?.id ?? change.before?.id;
    if (environmentId) runs.reviewEnvironmentNotices(environmentId);
    events.emit('agentsChanged', {});
  });
  // A budget saved, deleted or rolled over (or priced anew) changes admission's answer: agents are
  // verified again and "Budget reached" notices whose budget is whole again resolve themselves.
  budgets.onChange(() => {
    reviewAgents();
    events.emit('agentsChanged', {});
  });
  events.listen((event) => {
    if (event === 'pricesChanged') budgets.pricesChanged();
  });
  budgets.start();
  const usage = new UsageService(ledger, prices);
  const priceSettings = new PriceSettings(prices, events);
  const streams = new OutputStreams(fanout, (runId) => ledger.runs.row(runId) !== undefined);
  // Output stored before the search index (or while it failed) is indexed in the background.
  const searchIndex = new SearchIndexUpkeep(ledger, options.log);
  searchIndex.start();
  const search = new SearchService(ledger, searchIndex, options.log);
  // Runs a previous console left behind are stranded before anything new starts.
  const recovered = runs.recover().catch((error: unknown) => options.log.error('run recovery failed', { error: String(error) }));
  void probed.then(() => {
    if (!closed) reviewAgents();
  });

  // A page that crashes on every render must not flood the log: a few reports a minute are plenty.
  const rendererErrors = rateLimit({ perMinute: 10 });

  const handlers: CoreHandlers = {
    getSystemInfo: () => ({
      appVersion: options.appVersion,
      transport: options.transport,
      dataDir,
      ledgerPath: ledger.file,
      platform: process.platform,
      homeDir: operatorHome,
    }),
    getLogInfo: () => {
      const logFile = options.log.file ?? null;
      return { logFile, logDir: logFile ? path.dirname(logFile) : null };
    },
    openLogFolder: async () => {
      const logFile = options.log.file;
      if (!logFile) {
        throw new OperatorError({
          code: 'not_found',
          message: noLogFile,
        });
      }
      const logDir = path.dirname(logFile);
      // Rotation never removes the folder, but an operator might have: open an empty one rather than fail.
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      return { path: logDir, opened: await openInFileManager(logDir) };
    },
    openDataFolder: async () => ({ path: dataDir, opened: await openInFileManager(dataDir) }),
    reportRendererError: (input) => {
      if (!rendererErrors.allow()) return { logged: false };
      // `error`, not `message`: the line's own message says what this is.
      options.log.error('a page of the console crashed', {
        transport: options.transport,
        route: input.route,
        error: input.message,
        stack: input.stack,
        componentStack: input.componentStack,
      });
      return { logged: true };
    },
    listProjects: () => projects.list(),
    addProject: (input) => projects.add(input),
    removeProject: (input) => projects.remove(input.projectId),
    browseDirectory: (input) => browseDirectory(input?.path ?? operatorHome),
    getProjectSetup: (input) => projectSetup.getSetup(input.projectId),
    updateProjectSetup: ({ projectId, ...changes }) => projectSetup.updateSetup(projectId, changes),
    listConsoleVariables: () => projectSetup.consoleVariables(),
    listLayerVariables: (input) => projectSetup.listVariables({ layer: input.layer, id: input.ownerId }),
    setLayerVariables: (input) => projectSetup.setVariables({ layer: input.layer, id: input.ownerId }, input.variables),
    listTasks: (input) => tasks.list(input ?? {}),
    getTask: (input) => tasks.get(input.taskId),
    createTask: (input) => tasks.create(input),
    updateTask: ({ taskId, ...changes }) => tasks.update(taskId, changes),
    setTaskArchived: (input) => tasks.setArchived(input.taskId, input.archived),
    importTasks: (input) => tasks.importArtifacts(input.projectId),
    getCatalog: () => ({
      providers: catalog.listProviders().map((provider) => ({
        id: provider.id,
        displayName: provider.displayName,
        executable: provider.executable,
        testedVersion: provider.definition.testedVersion,
        homeVariable: provider.definition.home?.variable ?? null,
        supportsResume: provider.definition.launch.resumable,
        connectionProviders: [...provider.connectionProviders],
        models: provider.models.map((model) => ({ id: model.id, label: model.label })),
        profiles: provider.profiles.map((profile) => ({
          id: profile.id,
          label: profile.label,
          revision: profileRevision(provider, profile),
          maxAttempts: profile.maxAttempts,
          argsTemplate: profile.argsTemplate ?? null,
        })),
      })),
    }),
    listAgents: () => agents.list().map((agent) => verifier.decorate(agent)),
    getAgent: (input) => verifier.decorate(agents.get(input.agentId)),
    createAgent: ({ connectionId, ...input }) => {
      if (connectionId) connections.requireUsableByNewAgent(connectionId, input);
      const agent = agents.create(input);
      if (connectionId) connections.bindNewAgent(agent.id, connectionId);
      reviewAgents([agent.id]);
      return verifier.decorate(agents.get(agent.id));
    },
    updateAgent: ({ agentId, ...changes }) => {
      agents.update(agentId, changes);
      reviewAgents([agentId]);
      return verifier.decorate(agents.get(agentId));
    },
    deleteAgent: (input) => {
      const deleted = agents.delete(input.agentId, (agentId) => runs.hasOpenRuns(agentId));
      // What the agent's notices asked for can no longer be done: they leave the open list (without
      // offering Run again, which would only be refused).
      for (const notice of notices.openForAgent(input.agentId)) notices.dismiss(notice.id);
      return deleted;
    },
    checkAgentDraft: ({ connectionId, ...input }) => {
      const checkedAt = new Date().toISOString();
      let draft;
      try {
        draft = agents.draft(input, connectionId ?? null);
      } catch (error) {
        // A field the save would refuse: the preview says so in the same words.
        if (!(error instanceof OperatorError)) throw error;
        return { ok: false, checkedAt, message: error.message, code: error.code };
      }
      const connection = connections.state(connectionId ?? null);
      return agentTestResult(draft.name, runs.admit(draft, undefined, connection && sharedWithEveryone(connection)), checkedAt);
    },
    testAgent: (input) => {
      const result = verifier.test(input.agentId);
      events.emit('agentsChanged', {});
      return result;
    },
    verifyAgent: (input) => {
      verifier.verify(input.agentId);
      return verifier.decorate(agents.get(input.agentId));
    },
    getAgentCliVersion: (input) => {
      agents.get(input.agentId); // not_found for a deleted agent
      return cliVersions.forAgent(ledger.agents.get(input.agentId)!);
    },
    setAgentConnection: (input) => {
      connections.setAgentConnection(input.agentId, input.connectionId);
      return verifier.decorate(agents.get(input.agentId));
    },
    startRun: (input) => runs.start(input.taskId, input.agentId),
    getRun: (input) => runs.detail(input.runId),
    listRunEvents: (input) => runs.events(input.runId, input.afterId ?? 0, input.limit ?? 500),
    listRunNetwork: (input) => runs.network(input.runId),
    stopRun: (input) => runs.stop(input.runId),
    getRunDiff: (input) => runs.workspace.diff(input.runId),
    openRunFolder: (input) => runs.workspace.openFolder(input.runId),
    archiveRun: (input) => runs.archive(input.runId),
    deleteRun: (input) => runs.delete(input.runId),
    resumeRun: (input) => runs.resume(input.runId, input.prompt),
    sendRunInput: (input) => runs.sendInput(input.runId, input.data),
    resizeRun: (input) => runs.resize(input.runId, input.cols, input.rows),
    openRunOutput: (input, context) => streams.open(input.runId, input.from, context.client, input.until),
    ackRunOutput: (input, context) => streams.ack(input.subscriptionId, input.bytes, context.client),
    closeRunOutput: (input, context) => streams.closeFor(input.subscriptionId, context.client),
    listEnvironments: () => environments.list(),
    createEnvironment: (input) => environments.create(input),
    updateEnvironment: ({ environmentId, ...changes }) => environments.update(environmentId, changes),
    deleteEnvironment: (input) => environments.delete(input.environmentId),
    listConnections: () => connections.list(),
    listConnectionsForAgent: (input) => connections.forAgent(input.agentId),
    createConnection: (input) => connections.create(input),
    updateConnection: ({ connectionId, ...changes }) => connections.update(connectionId, changes),
    deleteConnection: (input) => connections.delete(input.connectionId),
    testConnection: (input) => connections.test(input.connectionId),
    getVaultInfo: () => connections.vaultInfo(),
    listRuns: (input) => ledger.runs.list(input ?? {}),
    // With a run id, every notice that stands for that run (the run detail shows it inline).
    listNotices: (input) => notices.list(input?.status ?? (input?.runId ? 'all' : 'open'), input?.runId),
    countOpenNotices: () => ({ open: notices.countOpen() }),
    dismissNotice: (input) => notices.dismiss(input.noticeId),
    runAgain: (input) => runs.runAgain(input.noticeId),
    getLandingPlan: (input) => landing.plan(input.runId, input.target),
    commitRunChanges: (input) => landing.commit(input.runId, input.message),
    landRun: (input) => landing.land(input),
    resolveRunConflicts: (input) => landing.resolveConflicts(input.runId, input.target),
    pushRunBranch: (input) => landing.push(input.runId),
    createPullRequest: (input) => landing.createPullRequest(input.runId, input.title, input.body),
    discardRun: (input) => landing.discard(input.runId),
    startRuns: (input) => landing.startMany(input.taskId, input.agentIds),
    compareTaskRuns: (input) => landing.compare(input.taskId),
    getDiskUsage: (input) => cleanup.diskUsage({ refresh: input?.refresh ?? false }),
    reclaimLedgerSpace: () => cleanup.reclaimLedgerSpace(),
    planCleanup: () => cleanup.plan(),
    cleanUpRuns: (input) => cleanup.cleanUp(input),
    getCleanupPolicy: () => cleanup.policy(),
    setCleanupPolicy: (input) => cleanup.setPolicy(input),
    // Issue 14, being built: each line is replaced by its service.
    getRunUsage: (input) => usage.runUsage(input.runId),
    getUsageReport: (input) => buildUsageReport(ledger, prices.current(), input),
    getPriceTable: () => priceSettings.get(),
    setPriceTable: (input) => priceSettings.set(input.table),
    listBudgets: () => budgets.list(),
    saveBudget: (input) => budgets.save(input),
    deleteBudget: (input) => budgets.delete(input.budgetId),
    getNotificationSettings: () => attention.settings(),
    setNotificationSettings: (input) => attention.setSettings(input),
    // Issue 29: full-text search (electron/handlers/search.ts at merge).
    searchOutput: (input) => search.search(input),
    getSearchIndexState: () => searchIndex.state(),
  };

  return {
    dataDir,
    ledger,
    events,
    runs,
    cleanup,
    connections,
    prices,
    searchIndex,
    dispatch: createRequestDispatcher(handlers, options.log, {
      // A page that goes bad while the console runs (the output is not checked at start) is named as
      // the damaged ledger it is, with the way back; no more daily copies are taken of it.
      explainFailure: (error) => {
        if (!isLedgerDamage(error)) return undefined;
        dailyBackup.ledgerFoundDamaged();
        return new LedgerDamagedError({ file: ledger.file, newestBackup: ledger.backups.newest(), sqliteMessage: error.message });
      },
    }),
    close: async () => {
      if (closed) return;
      closed = true;
      budgets.close();
      await dailyBackup.close();
      await recovered;
      await probed;
      await runs.shutdown();
      // After the runs: what they do as they stop is not news to tell.
      attention.close();
      // After the runs: a run ending as they stop may still start a measure, which is waited for.
      await cleanup.close();
      await searchIndex.close();
      // Every run has ended, so its output was handed over: wait for the last commits.
      await ledger.outputWriter.close();
      ledger.close();
    },
  };
}

/** `OPERATOR_CONSOLE_MIN_FREE_MIB`, in bytes; undefined (the default) when it is unset or not a number. */
export function minFreeDiskBytesFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.OPERATOR_CONSOLE_MIN_FREE_MIB?.trim();
  if (!value || !/^\d+(\.\d+)?$/.test(value)) return undefined;
  return Math.round(Number(value) * 1024 * 1024);
}

/** At most `perMinute` calls allowed in any sliding minute. */
function rateLimit(options: { perMinute: number }): { allow(): boolean } {
  const times: number[] = [];
  return {
    allow() {
      const now = Date.now();
      while (times.length > 0 && now - times[0]! > 60_000) times.shift();
      if (times.length >= options.perMinute) return false;
      times.push(now);
      return true;
    },
  };
}
