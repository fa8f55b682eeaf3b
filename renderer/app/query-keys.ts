import type { RunStatus } from '../../shared/entities';
import type { LandingState } from '../../shared/landing';
import type { UsageQuery } from '../../shared/usage';

export type NoticeListStatus = 'open' | 'resolved' | 'dismissed' | 'all';

export interface RunFilter {
  status?: RunStatus | undefined;
  agentId?: string | undefined;
  projectId?: string | undefined;
  landingState?: LandingState | undefined;
}

/**
 * One key family per channel. Pushed events invalidate by family (the first element), so every
 * filtered variant of a list refreshes together.
 */
export const queryKeys = {
  systemInfo: ['system-info'] as const,
  logInfo: ['log-info'] as const,
  serviceState: ['service-state'] as const,
  projects: ['projects'] as const,
  /** Under projects: a project change (projectsChanged) refreshes its setup too. */
  projectSetup: (projectId: string) => ['projects', 'setup', projectId] as const,
  /**
   * A layer's variables, under the family its owner's event refreshes: projects (projectsChanged),
   * agent (agentsChanged), tasks (tasksChanged).
   */
  layerVariables: (layer: 'project' | 'agent' | 'task', ownerId: string) =>
    (layer === 'project' ? ['projects', 'variables', ownerId] : layer === 'agent' ? ['agent', ownerId, 'variables'] : ['tasks', 'variables', ownerId]) as readonly string[],
  consoleVariables: ['console-variables'] as const,
  directory: (path: string | undefined) => ['directory', path ?? '~'] as const,
  tasksAll: ['tasks'] as const,
  tasks: (projectId: string | undefined, includeArchived: boolean) => ['tasks', projectId ?? 'all', includeArchived] as const,
  agents: ['agents'] as const,
  agentAll: ['agent'] as const,
  agent: (agentId: string) => ['agent', agentId] as const,
  agentCliVersion: (agentId: string) => ['agent', agentId, 'cli-version'] as const,
  /** New agent's preview of admission, per unsaved configuration; under agents so an agent change redoes it. */
  agentDraft: (draft: unknown) => ['agents', 'draft', draft] as const,
  catalog: ['catalog'] as const,
  environments: ['environments'] as const,
  hosts: ['hosts'] as const,
  connections: ['connections'] as const,
  /** Under the connections family: a connection change refreshes every agent's picker too. */
  connectionsForAgent: (agentId: string) => ['connections', 'agent', agentId] as const,
  vaultInfo: ['vault-info'] as const,
  runsAll: ['runs'] as const,
  runs: (filter: RunFilter) =>
    [
      'runs',
      'list',
      { status: filter.status ?? null, agentId: filter.agentId ?? null, projectId: filter.projectId ?? null, landingState: filter.landingState ?? null },
    ] as const,
  /** Under runs, so runsChanged (a run ended, landed, was discarded or cleaned up) refreshes them too. */
  taskRunCount: (taskId: string) => ['runs', 'task-count', taskId] as const,
  taskComparison: (taskId: string) => ['runs', 'compare', taskId] as const,
  compareLandingPlan: (runId: string, target: string | null) => ['runs', 'compare-landing-plan', runId, target] as const,
  diskUsage: ['runs', 'disk-usage'] as const,
  cleanupPlan: ['runs', 'cleanup-plan'] as const,
  cleanupPolicy: ['cleanup-policy'] as const,
  /** Budgets with what they spent: budgetsChanged, usageChanged and pricesChanged refresh them. */
  budgets: ['budgets'] as const,
  runAll: ['run'] as const,
  run: (runId: string) => ['run', runId] as const,
  runEvents: (runId: string) => ['runEvents', runId] as const,
  runNetwork: (runId: string) => ['runNetwork', runId] as const,
  runDiff: (runId: string) => ['runDiff', runId] as const,
  /** A run's landing dry runs, one per target asked for (undefined: its base branch); runsChanged refreshes them all. */
  landingPlans: (runId: string) => ['landingPlan', runId] as const,
  landingPlan: (runId: string, target: string | undefined) => ['landingPlan', runId, target ?? null] as const,
  /** Usage and its estimates: usageChanged and pricesChanged refresh the whole family. */
  usageAll: ['usage'] as const,
  usageReport: (query: UsageQuery) => ['usage', 'report', query] as const,
  runUsage: (runId: string) => ['usage', 'run', runId] as const,
  priceTable: ['price-table'] as const,
  noticesAll: ['notices'] as const,
  notices: (status: NoticeListStatus) => ['notices', 'list', status] as const,
  noticesCount: ['notices', 'count'] as const,
  notificationSettings: ['notification-settings'] as const,
};
