import { homedir } from 'node:os';
import type { Logger } from './log';
import { ensureDataDir } from './data-dir';
import { openLedger, type Ledger } from './ledger/ledger';
import { NoticeService } from './notices/notice-service';
import { browseDirectory } from './projects/directory-browser';
import { ProjectService } from './projects/project-service';
import { TaskService } from './tasks/task-service';
import { EventHub } from './transport/event-hub';
import { createRequestDispatcher, type CoreHandlers, type RequestDispatcher } from './transport/request-dispatcher';

export interface CoreOptions {
  dataDir: string;
  transport: 'electron' | 'browser';
  appVersion: string;
  log: Logger;
  /** The Electron-ABI better-sqlite3 addon, when running inside Electron. */
  sqliteNativeBinding?: string | undefined;
}

/** The console's core: plain Node, the same in the desktop app and the browser host. */
export interface Core {
  readonly dataDir: string;
  readonly ledger: Ledger;
  readonly events: EventHub;
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
    listAgents: () => ledger.agents.list(),
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
    dispatch: createRequestDispatcher(handlers, options.log),
    close: async () => {
      if (closed) return;
      closed = true;
      ledger.close();
    },
  };
}
