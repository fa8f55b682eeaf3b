import { homedir } from 'node:os';
import type { Logger } from './log';
import { ensureDataDir } from './data-dir';
import { openLedger, type Ledger } from './ledger/ledger';
import { NoticeService } from './notices/notice-service';
import { browseDirectory } from './projects/directory-browser';
import { ProjectService } from './projects/project-service';
import { TaskService } from './tasks/task-service';
import { AgentService } from './agents/agent-service';
import { loadProviderCatalog, profileRevision } from './providers/catalog';
import { OutputFanout } from './pty/output-fanout';
import { OutputStreams } from './runs/output-streams';
import { RunService } from './runs/run-service';
import type { SandboxState } from './runs/admission';
import { EventHub } from './transport/event-hub';
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
}

/** The console's core: plain Node, the same in the desktop app and the browser host. */
export interface Core {
  readonly dataDir: string;
  readonly ledger: Ledger;
  readonly events: EventHub;
  readonly runs: RunService;
  readonly dispatch: RequestDispatcher;
  close(): Promise<void>;
}

/** Composes the core once at start: the ledger first, then the domain services on top of it. */
export function createCore(options: CoreOptions): Core {
  const dataDir = ensureDataDir(options.dataDir);
  const ledger = openLedger(dataDir, { nativeBinding: options.sqliteNativeBinding });
  const events = new EventHub();
  const projects = new ProjectService(ledger, events);
  const notices = new NoticeService(ledger, events);
  const tasks = new TaskService(ledger, events);
  const catalog = loadProviderCatalog(options.catalogPath ? { path: options.catalogPath } : {});
  const agents = new AgentService(ledger, catalog, events);
  const fanout = new OutputFanout({ output: ledger.output, log: options.log });
  let sandbox: SandboxState | null = null;
  const runs = new RunService({ ledger, catalog, events, notices, fanout, dataDir, log: options.log, sandbox: () => sandbox });
  const streams = new OutputStreams(fanout, (runId) => ledger.runs.row(runId) !== undefined);
  // Runs a previous console left behind are stranded before anything new starts.
  const recovered = runs.recover().catch((error: unknown) => options.log.error('run recovery failed', { error: String(error) }));
  void import('./confinement/bwrap').then(async ({ probeSandbox }) => {
    const probe = await probeSandbox();
    sandbox = { available: probe.available, reason: probe.reason, hint: probe.hint };
    if (!probe.available) options.log.warn('OS sandbox unavailable', { reason: probe.reason });
  });

  const handlers: CoreHandlers = {
    getSystemInfo: () => ({
      appVersion: options.appVersion,
      transport: options.transport,
      dataDir,
      ledgerPath: ledger.file,
      platform: process.platform,
      homeDir: homedir(),
    }),
    listProjects: () => projects.list(),
    addProject: (input) => projects.add(input),
    removeProject: (input) => projects.remove(input.projectId),
    browseDirectory: (input) => browseDirectory(input?.path ?? homedir()),
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
        testedVersion: provider.testedVersion,
        homeVariable: provider.homeVariable,
        supportsResume: provider.adapter !== 'command',
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
    listAgents: () => agents.list(),
    getAgent: (input) => agents.get(input.agentId),
    createAgent: (input) => agents.create(input),
    updateAgent: ({ agentId, ...changes }) => agents.update(agentId, changes),
    deleteAgent: (input) => agents.delete(input.agentId, (agentId) => runs.hasOpenRuns(agentId)),
    startRun: (input) => runs.start(input.taskId, input.agentId),
    getRun: (input) => runs.detail(input.runId),
    listRunEvents: (input) => runs.events(input.runId, input.afterId ?? 0, input.limit ?? 500),
    stopRun: (input) => runs.stop(input.runId),
    getRunDiff: (input) => runs.diff(input.runId),
    openRunFolder: (input) => runs.openFolder(input.runId),
    archiveRun: (input) => runs.archive(input.runId),
    deleteRun: (input) => runs.delete(input.runId),
    resumeRun: (input) => runs.resume(input.runId, input.prompt),
    sendRunInput: (input) => runs.sendInput(input.runId, input.data),
    resizeRun: (input) => runs.resize(input.runId, input.cols, input.rows),
    openRunOutput: (input, context) => streams.open(input.runId, input.from, context.client),
    ackRunOutput: (input, context) => streams.ack(input.subscriptionId, input.bytes, context.client),
    closeRunOutput: (input, context) => streams.closeFor(input.subscriptionId, context.client),
    listEnvironments: () => ledger.agents.listEnvironments(),
    listConnections: () => ledger.connections.list(),
    listRuns: (input) => ledger.runs.list(input ?? {}),
    listNotices: (input) => notices.list(input?.status ?? 'open'),
    countOpenNotices: () => ({ open: notices.countOpen() }),
    dismissNotice: (input) => notices.dismiss(input.noticeId),
  };

  let closed = false;
  return {
    dataDir,
    ledger,
    events,
    runs,
    dispatch: createRequestDispatcher(handlers, options.log),
    close: async () => {
      if (closed) return;
      closed = true;
      await recovered;
      await runs.shutdown();
      ledger.close();
    },
  };
}
