import { homedir } from 'node:os';
import path from 'node:path';
import { AttentionService } from './attention/attention-service';
import { LandingService } from './landing/landing-service';
import type { Logger } from './platform/log';
import { ConnectionService } from './connections/connection-service';
import { DesktopSecrets } from './connections/desktop-secrets';
import { KeyFileVault, SecretKeeper, type SecretVault } from './connections/secret-vault';
import { startSandboxProbe } from './sandbox/sandbox-probe';
import { ensureDataDir } from './platform/data-dir';
import { DailyLedgerBackup } from './ledger/daily-ledger-backup';
import { explainLedgerDamage } from './ledger/ledger-damage';
import { openLedger, type Ledger } from './ledger/ledger';
import { NoticeService } from './notices/notice-service';
import { ProjectService } from './projects/project-service';
import { ProjectSetupService } from './projects/project-setup-service';
import { TaskService } from './tasks/task-service';
import { AgentService } from './agents/agent-service';
import { EnvironmentService } from './environments/environment-service';
import { HostService } from './hosts/host-service';
import { CliVersionService } from './agents/cli-version';
import { loadProviderCatalog } from './providers/catalog';
import { OutputFanout } from './pty/output-fanout';
import { OutputStreams } from './runs/output-streams';
import { attemptStarts } from './runs/attempt-output';
import { AgentVerifier } from './runs/agent-verification';
import { RunService } from './runs/run-service';
import type { RunEventBus } from './events/run-events';
import { CleanupService } from './cleanup/cleanup-service';
import { subscribeCleanup } from './cleanup/run-ended-cleanup';
import { CoreEventBus } from './events/core-event-bus';
import { EventHub } from './events/event-hub';
import { BudgetService } from './usage/budget-service';
import { PriceSettings } from './usage/price-settings';
import { PriceTableStore } from './usage/price-table-store';
import { UsageService } from './usage/usage-service';
import { createRequestDispatcher, type RequestDispatcher } from './transport/request-dispatcher';
import { agentReview, reviewAgentsOnBudgetChange, reviewAgentsOnConnectionChange, reviewOnEnvironmentChange } from './agents/agent-review';
import { repriceBudgetsOnPriceChange } from './usage/budget-repricing';
import { SystemService } from './system/system-service';
import { coreHandlers } from './handlers/core-handlers';
import { subscribeAttemptUsage } from './usage/attempt-usage';
import { SearchIndexUpkeep } from './search/search-index-upkeep';
import { SearchService } from './search/search-service';

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
  /**
   * The ssh config file the console's ssh reads (`ssh -F`). Default: `OPERATOR_CONSOLE_SSH_CONFIG`
   * from the operator's environment, else ssh's own (~/.ssh/config).
   */
  sshConfigFile?: string | undefined;
}

/** The console's core: plain Node, the same in the desktop app and the browser host. */
export interface Core {
  readonly dataDir: string;
  readonly ledger: Ledger;
  readonly events: EventHub;
  /** The run lifecycle's events (events/run-events.ts), for reactions that live outside the runs. */
  readonly lifecycle: RunEventBus;
  readonly runs: RunService;
  /** Finished runs' task roots: their sizes, Clean up and its policy. */
  readonly cleanup: CleanupService;
  readonly connections: ConnectionService;
  /** The desktop app's secrets key, handed to the console service, and its secrets from before the service. */
  readonly desktopSecrets: DesktopSecrets;
  /** The price table in use (shipped, or the operator's edit): one store every cost estimate shares. */
  readonly prices: PriceTableStore;
  /** The search index's background work (catching up stored output, rebuilding a damaged index). */
  readonly searchIndex: SearchIndexUpkeep;
  /** The console itself (its version, and the console service's handover to another version). */
  readonly system: SystemService;
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
  // The core's domain events (events/run-events.ts): the run lifecycle emits them, reactions subscribe.
  const lifecycle: RunEventBus = new CoreEventBus(options.log);
  // Listening before anything can happen: the runs recovery strands at start-up notify too.
  const attention = new AttentionService({ ledger, events, lifecycle, log: options.log, now });
  const tasks = new TaskService(ledger, events);
  const catalog = loadProviderCatalog(options.catalogPath ? { path: options.catalogPath } : {});
  const environments = new EnvironmentService(ledger, events);
  const operatorEnv = options.operatorEnv ?? process.env;
  const hosts = new HostService({
    ledger,
    events,
    log: options.log,
    dataDir,
    operatorEnv,
    sshConfigFile: options.sshConfigFile ?? (operatorEnv.OPERATOR_CONSOLE_SSH_CONFIG || null),
    now,
  });
  // The key-file vault is made lazily: the desktop app needs it only to read secrets a browser host sealed.
  let keyFileVault: KeyFileVault | undefined = options.vault ? undefined : new KeyFileVault(dataDir, options.log);
  const keeper = new SecretKeeper(options.vault ?? keyFileVault!, () => (keyFileVault ??= new KeyFileVault(dataDir, options.log)), dataDir);
  const connections = new ConnectionService({ ledger, catalog, events, keeper, log: options.log });
  // Secret variables are sealed with the same vault as connection keys.
  const projectSetup = new ProjectSetupService(ledger, events, keeper);
  // Viewers are told where each attempt begins, so a terminal can mark it; the ledger keeps only the PTY's bytes.
  const fanout = new OutputFanout({ output: ledger.output, log: options.log, attemptStarts: (runId) => attemptStarts(ledger, catalog, runId) });
  let closed = false;
  const operatorHome = options.operatorHome ?? homedir();
  // Probed once, off the start-up path: a sandboxed run admitted before the answer waits for it at
  // launch. The seccomp filter the sandboxes load is written into the data directory's sandbox folder.
  const sandboxCheck = startSandboxProbe({ stateDir: path.join(dataDir, 'sandbox'), operatorHome, log: options.log });
  const cliVersions = new CliVersionService({ catalog, operatorEnv: options.operatorEnv ?? process.env, log: options.log });
  const budgets = new BudgetService({ ledger, events, prices, log: options.log, now });
  const runs = new RunService({
    ledger,
    catalog,
    events,
    lifecycle,
    notices,
    connections,
    projectSetup,
    fanout,
    dataDir,
    log: options.log,
    sandbox: () => sandboxCheck.state(),
    sandboxProbe: sandboxCheck,
    operatorEnv: options.operatorEnv,
    operatorHome,
    budgets,
    now,
    minFreeDiskBytes: options.minFreeDiskBytes ?? minFreeDiskBytesFromEnv(process.env),
    diskCheckIntervalMs: options.diskCheckIntervalMs,
    outputGiveUpAfterMs: options.outputGiveUpAfterMs,
    hosts,
  });
  const cleanup = new CleanupService({ ledger, workspace: runs.workspace, events, log: options.log, canResume: (runId) => runs.canResume(runId), hostsDisk: () => hosts.diskUse(), pruneHostGitStores: (plan) => hosts.pruneGitStores(plan) });
  // A run's task root is measured when it ends; the policy is applied now and every hour.
  subscribeCleanup(lifecycle, cleanup);
  cleanup.start();
  const landing = new LandingService({ ledger, runs, notices, log: options.log, operatorEnv: options.operatorEnv ?? process.env });
  const verifier = new AgentVerifier(ledger, runs, connections, options.log);
  // After anything admission looks at changed, agents are verified again and their notices looked at.
  const reviewAgents = agentReview({ ledger, verifier, runs });
  reviewAgentsOnConnectionChange(connections, { ledger, verifier, runs });
  reviewOnEnvironmentChange(environments, { review: reviewAgents, runs, events });
  reviewAgentsOnBudgetChange(budgets, { review: reviewAgents, events });
  repriceBudgetsOnPriceChange(events, budgets);
  budgets.start();
  const usage = new UsageService(ledger, prices);
  subscribeAttemptUsage(lifecycle, { ledger, events, log: options.log, now });
  const priceSettings = new PriceSettings(prices, events);
  const streams = new OutputStreams(fanout, (runId) => ledger.runs.row(runId) !== undefined);
  const agents = new AgentService({ ledger, catalog, events, connections, verifier, review: reviewAgents, runs, notices, cliVersions });
  const system = new SystemService({ appVersion: options.appVersion, transport: options.transport, dataDir, ledgerFile: ledger.file, operatorHome, log: options.log, events });
  // Output stored before the search index (or while it failed) is indexed in the background.
  const searchIndex = new SearchIndexUpkeep(ledger, options.log, () => runs.anyActive());
  searchIndex.start();
  const search = new SearchService(ledger, searchIndex, options.log, { nativeBinding: options.sqliteNativeBinding });
  // Runs a previous console left behind are stranded before anything new starts.
  const recovered = runs.recover().catch((error: unknown) => options.log.error('run recovery failed', { error: String(error) }));
  // The sandbox's answer is part of every agent's admission.
  void sandboxCheck.ready().then(() => {
    if (!closed) reviewAgents();
  });

  const handlers = coreHandlers({
    system,
    operatorHome,
    projects,
    projectSetup,
    tasks,
    agents,
    environments,
    hosts,
    connections,
    runs,
    ledger,
    streams,
    notices,
    landing,
    cleanup,
    usage,
    priceSettings,
    budgets,
    attention,
    search,
    searchIndex,
  });

  return {
    dataDir,
    ledger,
    events,
    lifecycle,
    runs,
    cleanup,
    connections,
    desktopSecrets: new DesktopSecrets(keeper, ledger, connections, options.log),
    prices,
    searchIndex,
    system,
    dispatch: createRequestDispatcher(handlers, options.log, { explainFailure: explainLedgerDamage(ledger, dailyBackup) }),
    close: async () => {
      if (closed) return;
      closed = true;
      budgets.close();
      await dailyBackup.close();
      await recovered;
      await sandboxCheck.ready();
      await runs.shutdown();
      // After the runs: what they do as they stop is not news to tell.
      attention.close();
      // After the runs: a run ending as they stop may still start a measure, which is waited for.
      await cleanup.close();
      await search.close();
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
