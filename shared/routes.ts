/**
 * In-app routes. Action links in notices and errors are built here and nowhere else, so a link the core
 * writes into the ledger today still opens the right place in the renderer tomorrow. Routes are hash
 * routes: they work under file:// (Electron) and over http (browser host) alike.
 */

export type ActionTarget =
  | { kind: 'runs' }
  /** A run; with `at`, its terminal opens at that byte of its output with `find` highlighted (a search result). */
  | { kind: 'run'; runId: string; at?: number; find?: string }
  /** The run's Changes, where it is committed, landed, pushed or discarded; `land` opens the Land dialog (at `target`). */
  | { kind: 'run-changes'; runId: string; land?: boolean; target?: string }
  /** A task's runs side by side. */
  | { kind: 'task-compare'; taskId: string }
  /** Clean up: the finished runs whose files could go, and the disk they take. */
  | { kind: 'cleanup' }
  | { kind: 'tasks'; projectId?: string }
  | { kind: 'agents' }
  | { kind: 'agent'; agentId: string }
  | { kind: 'agent-ai-connection'; agentId: string }
  | { kind: 'agent-home-mode'; agentId: string }
  /** The agent's executable path: what a CLI that could not be started is fixed with. */
  | { kind: 'agent-executable-path'; agentId: string }
  | { kind: 'settings' }
  | { kind: 'settings-projects' }
  /** A project's setup: files copied into each run, the setup command, its variables (with `field` focused). */
  | { kind: 'project-setup'; projectId: string; field?: 'setup-command' | 'copy-patterns' | 'variables' }
  | { kind: 'settings-ai-connections' }
  | { kind: 'settings-environments' }
  /** SSH hosts: add, test, trust a host key, remove. */
  | { kind: 'settings-hosts' }
  /** An environment's settings; with `allowHost`, its Allowed hosts open with that host filled in, ready to save. */
  | { kind: 'settings-environment'; environmentId: string; allowHost?: string }
  | { kind: 'notices' }
  /** Usage and estimated cost, by day and task, for a date range. */
  | { kind: 'usage' }
  | { kind: 'settings-budgets' }
  /** One budget's setting (its limit focused): what a "Budget reached" notice links to. */
  | { kind: 'budget'; budgetId: string }
  /** The price table; with `addPrice`, a row for that model (when it has none) is added and its price focused. */
  | { kind: 'settings-prices'; addPrice?: { priceProvider: string; model: string } }
  | { kind: 'settings-notifications' }
  /** Full-text search over what runs printed, their timelines, tasks and notices; `query` typed in. */
  | { kind: 'search'; query?: string };

/** Path patterns the renderer's router matches; kept beside the builder so the two cannot drift. */
export const routePatterns = {
  runs: '/runs',
  run: '/runs/:runId',
  runChanges: '/runs/:runId/changes',
  taskCompare: '/tasks/:taskId/compare',
  cleanup: '/cleanup',
  tasks: '/tasks',
  agents: '/agents',
  agent: '/agents/:agentId',
  agentSetting: '/agents/:agentId/:setting',
  settings: '/settings',
  settingsSection: '/settings/:section',
  settingsEnvironment: '/settings/environments/:environmentId',
  projectSetup: '/settings/projects/:projectId',
  notices: '/notices',
  usage: '/usage',
  search: '/search',
  settingsBudget: '/settings/budgets/:budgetId',
} as const;

const enc = encodeURIComponent;

/** The path part of an in-app route (what the hash router sees), e.g. `/agents/agt_1/ai-connection`. */
export function actionPath(target: ActionTarget): string {
  switch (target.kind) {
    case 'runs':
      return '/runs';
    case 'run': {
      const query = [target.at !== undefined ? `at=${target.at}` : '', target.find ? `find=${enc(target.find)}` : ''].filter(Boolean).join('&');
      return `/runs/${enc(target.runId)}${query ? `?${query}` : ''}`;
    }
    case 'run-changes': {
      const query = [target.land ? 'land=1' : '', target.target ? `target=${enc(target.target)}` : ''].filter(Boolean).join('&');
      return `/runs/${enc(target.runId)}/changes${query ? `?${query}` : ''}`;
    }
    case 'task-compare':
      return `/tasks/${enc(target.taskId)}/compare`;
    case 'cleanup':
      return '/cleanup';
    case 'tasks':
      return target.projectId ? `/tasks?project=${enc(target.projectId)}` : '/tasks';
    case 'agents':
      return '/agents';
    case 'agent':
      return `/agents/${enc(target.agentId)}`;
    case 'agent-ai-connection':
      return `/agents/${enc(target.agentId)}/ai-connection`;
    case 'agent-home-mode':
      return `/agents/${enc(target.agentId)}/home-mode`;
    case 'agent-executable-path':
      return `/agents/${enc(target.agentId)}/executable-path`;
    case 'settings':
      return '/settings';
    case 'settings-projects':
      return '/settings/projects';
    case 'project-setup':
      return `/settings/projects/${enc(target.projectId)}${target.field ? `?field=${enc(target.field)}` : ''}`;
    case 'settings-ai-connections':
      return '/settings/ai-connections';
    case 'settings-environments':
      return '/settings/environments';
    case 'settings-hosts':
      return '/settings/hosts';
    case 'settings-environment':
      return `/settings/environments/${enc(target.environmentId)}${target.allowHost ? `?allow=${enc(target.allowHost)}` : ''}`;
    case 'notices':
      return '/notices';
    case 'usage':
      return '/usage';
    case 'settings-budgets':
      return '/settings/budgets';
    case 'budget':
      return `/settings/budgets/${enc(target.budgetId)}`;
    case 'settings-prices':
      return target.addPrice ? `/settings/prices?provider=${enc(target.addPrice.priceProvider)}&model=${enc(target.addPrice.model)}` : '/settings/prices';
    case 'settings-notifications':
      return '/settings/notifications';
    case 'search':
      return target.query ? `/search?q=${enc(target.query)}` : '/search';
  }
}

/** The full action URL stored on notices and errors: a hash route usable as an `href`. */
export function actionRoute(target: ActionTarget): string {
  return `#${actionPath(target)}`;
}
