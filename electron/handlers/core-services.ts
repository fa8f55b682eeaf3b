import type { AgentService } from '../agents/agent-service';
import type { AttentionService } from '../attention/attention-service';
import type { CleanupService } from '../cleanup/cleanup-service';
import type { ConnectionService } from '../connections/connection-service';
import type { EnvironmentService } from '../environments/environment-service';
import type { HostService } from '../hosts/host-service';
import type { LandingService } from '../landing/landing-service';
import type { Ledger } from '../ledger/ledger';
import type { NoticeService } from '../notices/notice-service';
import type { ProjectService } from '../projects/project-service';
import type { ProjectSetupService } from '../projects/project-setup-service';
import type { SearchIndexUpkeep } from '../search/search-index-upkeep';
import type { SearchService } from '../search/search-service';
import type { OutputStreams } from '../runs/output-streams';
import type { RunService } from '../runs/run-service';
import type { SystemService } from '../system/system-service';
import type { TaskService } from '../tasks/task-service';
import type { BudgetService } from '../usage/budget-service';
import type { PriceSettings } from '../usage/price-settings';
import type { UsageService } from '../usage/usage-service';

/** The services the request handlers call, made once by createCore (electron/core.ts). */
export interface CoreServices {
  system: SystemService;
  /** The operator's home as runs see it: where Browse… starts. */
  operatorHome: string;
  projects: ProjectService;
  projectSetup: ProjectSetupService;
  tasks: TaskService;
  agents: AgentService;
  environments: EnvironmentService;
  /** SSH hosts: add, test, trust a key, remove. */
  hosts: HostService;
  connections: ConnectionService;
  runs: RunService;
  /** The runs list reads the ledger's runs table directly: it is a page of records, nothing more. */
  ledger: Ledger;
  streams: OutputStreams;
  notices: NoticeService;
  landing: LandingService;
  cleanup: CleanupService;
  usage: UsageService;
  priceSettings: PriceSettings;
  budgets: BudgetService;
  attention: AttentionService;
  /** Full-text search over what runs printed, and the index's upkeep (how complete it is). */
  search: SearchService;
  searchIndex: SearchIndexUpkeep;
}
