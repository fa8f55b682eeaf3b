import path from 'node:path';
import { AgentsRepository } from './agents-repository';
import { BudgetsRepository } from './budgets-repository';
import { ConnectionsRepository } from './connections-repository';
import { EnvironmentsRepository } from './environments-repository';
import { HostsRepository } from './hosts-repository';
import { LedgerBackups } from './ledger-backups';
import { type LedgerDb } from './database-handle';
import { openLedgerDb, type OpenLedgerOptions } from './ledger-db';
import { LedgerSpace } from './ledger-space';
import { NoticesRepository } from './notices-repository';
import { NotificationsRepository } from './notifications-repository';
import { OutputRepository } from './output-repository';
import { OutputWriter } from './output-writer';
import { ProjectSetupRepository } from './project-setup-repository';
import { ProjectsRepository } from './projects-repository';
import { RunsRepository } from './runs-repository';
import { SettingsRepository } from './settings-repository';
import { TasksRepository } from './tasks-repository';
import { UsageRepository } from './usage-repository';
import { steerWalCheckpoints } from './wal-checkpoints';

export const ledgerFileName = 'ledger.sqlite';

/** The run ledger: one SQLite file, one repository per table group. */
export interface Ledger {
  readonly file: string;
  readonly db: LedgerDb;
  /** Copies of the ledger in `<data dir>/backups/` (before migrations, and daily). */
  readonly backups: LedgerBackups;
  readonly projects: ProjectsRepository;
  /** Projects' setup settings and the variable layers (project, agent, task). */
  readonly projectSetup: ProjectSetupRepository;
  readonly tasks: TasksRepository;
  readonly agents: AgentsRepository;
  readonly environments: EnvironmentsRepository;
  /** SSH hosts (Settings → Hosts). */
  readonly hosts: HostsRepository;
  readonly connections: ConnectionsRepository;
  readonly runs: RunsRepository;
  readonly notices: NoticesRepository;
  /** Runs' raw PTY output. */
  readonly output: OutputRepository;
  /** Appends runs' output on a worker thread with its own connection (started on first use). */
  readonly outputWriter: OutputWriter;
  /** The file's room on the disk: its size, what deleted runs left free in it, giving that back. */
  readonly space: LedgerSpace;
  /** The console's own settings (the clean-up policy). */
  readonly settings: SettingsRepository;
  /** Token usage per attempt (issue 14). */
  readonly usage: UsageRepository;
  readonly budgets: BudgetsRepository;
  /** Which events desktop notifications were sent for. */
  readonly notifications: NotificationsRepository;
  /** Closes at once: output appends still in flight fail. Await `outputWriter.close()` first to drain. */
  close(): void;
}

export function openLedger(dataDir: string, options: OpenLedgerOptions = {}): Ledger {
  const file = path.join(dataDir, ledgerFileName);
  const backups = options.backups ?? new LedgerBackups(dataDir);
  const db = openLedgerDb(file, { ...options, backups });
  const outputWriter = new OutputWriter({ file, nativeBinding: options.nativeBinding });
  const space = new LedgerSpace({ file, db, outputWriter });
  const stopCheckpoints = steerWalCheckpoints(db, outputWriter);
  return {
    file,
    db,
    backups,
    projects: new ProjectsRepository(db),
    projectSetup: new ProjectSetupRepository(db),
    tasks: new TasksRepository(db),
    agents: new AgentsRepository(db),
    environments: new EnvironmentsRepository(db),
    hosts: new HostsRepository(db),
    connections: new ConnectionsRepository(db),
    runs: new RunsRepository(db),
    notices: new NoticesRepository(db),
    output: new OutputRepository(db),
    outputWriter,
    space,
    settings: new SettingsRepository(db),
    usage: new UsageRepository(db),
    budgets: new BudgetsRepository(db),
    notifications: new NotificationsRepository(db),
    close: () => {
      stopCheckpoints();
      outputWriter.terminate();
      db.close();
    },
  };
}
