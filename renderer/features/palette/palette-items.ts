import { actionPath } from '../../../shared/routes';
import type { Agent, Notice, Project, RunSummary, Task } from '../../../shared/entities';
import { shortcuts, type ShortcutId } from '../../app/shortcuts';
import { isActiveRunStatus, runStatusLabel } from '../../ui/run-status';

/** What choosing an item does. */
export type PaletteCommand =
  | { kind: 'navigate'; path: string }
  /** Whatever the shortcut does (go to a page, new task, show the shortcuts). */
  | { kind: 'shortcut'; id: ShortcutId }
  | { kind: 'run-task'; task: Task }
  | { kind: 'stop-run'; run: RunSummary; label: string };

export interface PaletteItem {
  /** Unique and stable: the palette's selection follows it. */
  id: string;
  /** The option's name, as an operator reads it. */
  label: string;
  /** More words it is found by, not shown (a notice's message, a run's project). */
  keywords: string[];
  /** Shown beside the label. */
  shortcut?: ShortcutId;
  /** Said after the label, not part of its name (what "Search output…" will search for). */
  hint?: string;
  /** Only listed once something is typed (one "Run …" per task would bury everything else). */
  searchOnly?: boolean;
  command: PaletteCommand;
}

export type PaletteGroupId = 'runs' | 'tasks' | 'agents' | 'notices' | 'actions' | 'go-to' | 'shortcuts' | 'search';

export interface PaletteGroup {
  id: PaletteGroupId;
  heading: string;
  items: PaletteItem[];
}

export interface PaletteData {
  runs: readonly RunSummary[];
  tasks: readonly Task[];
  agents: readonly Agent[];
  notices: readonly Notice[];
  projects: readonly Project[];
}

/** A run by its task, who runs it and how it stands: "Plan the refund flow — Codex · Running". */
export function runLabel(run: RunSummary): string {
  return `${run.taskTitle} — ${run.agentName} · ${runStatusLabel(run.status)}`;
}

/** The pages of the main navigation; `keywords` are more words a page is found by. */
const pages: { label: string; shortcut?: ShortcutId; path: string; keywords?: string[] }[] = [
  { label: 'Runs', shortcut: 'go-runs', path: actionPath({ kind: 'runs' }) },
  { label: 'Tasks', shortcut: 'go-tasks', path: actionPath({ kind: 'tasks' }) },
  { label: 'Agents', shortcut: 'go-agents', path: actionPath({ kind: 'agents' }) },
  { label: 'Notices', shortcut: 'go-notices', path: actionPath({ kind: 'notices' }) },
  { label: 'Usage', path: actionPath({ kind: 'usage' }), keywords: ['tokens', 'cost', 'money', 'spend', 'csv'] },
  { label: 'Clean up', path: actionPath({ kind: 'cleanup' }), keywords: ['disk', 'remove', 'free space'] },
  { label: 'Settings', shortcut: 'go-settings', path: actionPath({ kind: 'settings' }) },
];

const settingsSections: { label: string; path: string }[] = [
  { label: 'Projects', path: actionPath({ kind: 'settings-projects' }) },
  { label: 'Environments', path: actionPath({ kind: 'settings-environments' }) },
  { label: 'Hosts', path: actionPath({ kind: 'settings-hosts' }) },
  { label: 'AI connections', path: actionPath({ kind: 'settings-ai-connections' }) },
  { label: 'Budgets', path: actionPath({ kind: 'settings-budgets' }) },
  { label: 'Prices', path: actionPath({ kind: 'settings-prices' }) },
  { label: 'Notifications', path: actionPath({ kind: 'settings-notifications' }) },
  { label: 'About', path: '/settings/about' },
];

/** Everything the palette can find, grouped, before any search. */
export function buildPaletteGroups(data: PaletteData): PaletteGroup[] {
  const projectName = new Map(data.projects.map((project) => [project.id, project.name]));
  // The project is only worth saying when there is more than one to tell apart.
  const inProject = (projectId: string) => (data.projects.length > 1 ? projectName.get(projectId) : undefined);
  const openTasks = data.tasks.filter((task) => !task.archived);

  const runs: PaletteItem[] = data.runs.map((run) => ({
    id: `run:${run.id}`,
    label: runLabel(run),
    keywords: [projectName.get(run.projectId) ?? '', run.archived ? 'archived' : ''].filter(Boolean),
    command: { kind: 'navigate', path: actionPath({ kind: 'run', runId: run.id }) },
  }));

  const tasks: PaletteItem[] = openTasks.map((task) => {
    const project = inProject(task.projectId);
    return {
      id: `task:${task.id}`,
      label: project ? `${task.title} · ${project}` : task.title,
      keywords: [task.planPath ?? '', task.reviewPath ?? ''].filter(Boolean),
      command: { kind: 'navigate', path: actionPath({ kind: 'tasks', projectId: task.projectId }) },
    };
  });

  const agents: PaletteItem[] = data.agents.map((agent) => ({
    id: `agent:${agent.id}`,
    label: agent.name,
    keywords: [agent.model, agent.providerId],
    command: { kind: 'navigate', path: actionPath({ kind: 'agent', agentId: agent.id }) },
  }));

  const notices: PaletteItem[] = data.notices
    .filter((notice) => notice.status === 'open')
    .map((notice) => ({
      id: `notice:${notice.id}`,
      label: notice.title,
      keywords: [notice.message],
      command: { kind: 'navigate', path: actionPath({ kind: 'notices' }) },
    }));

  const actions: PaletteItem[] = [
    { id: 'action:new-task', label: 'New task', keywords: ['create', 'add'], shortcut: 'new-task', command: { kind: 'shortcut', id: 'new-task' } },
    {
      id: 'action:search-output',
      label: 'Search output…',
      keywords: ['find', 'full text', 'printed', 'grep'],
      command: { kind: 'navigate', path: actionPath({ kind: 'search' }) },
    },
    ...settingsSections.map((section): PaletteItem => ({
      id: `action:settings:${section.path}`,
      label: `Open settings: ${section.label}`,
      keywords: ['preferences'],
      command: { kind: 'navigate', path: section.path },
    })),
    {
      id: 'action:shortcuts',
      label: 'Keyboard shortcuts',
      keywords: ['keys', 'help'],
      shortcut: 'show-shortcuts',
      command: { kind: 'shortcut', id: 'show-shortcuts' },
    },
    ...data.runs
      .filter((run) => isActiveRunStatus(run.status))
      .map((run): PaletteItem => {
        const label = `${run.taskTitle} — ${run.agentName}`;
        return { id: `action:stop:${run.id}`, label: `Stop ${label}`, keywords: ['cancel'], command: { kind: 'stop-run', run, label } };
      }),
    ...openTasks.map((task): PaletteItem => {
      const project = inProject(task.projectId);
      return {
        id: `action:run:${task.id}`,
        label: `Run ${task.title}${project ? ` · ${project}` : ''}…`,
        keywords: ['start'],
        searchOnly: true,
        command: { kind: 'run-task', task },
      };
    }),
  ];

  const goTo: PaletteItem[] = pages.map((page) => ({
    id: `page:${page.path}`,
    label: page.label,
    keywords: ['go to', 'page', ...(page.keywords ?? [])],
    ...(page.shortcut ? { shortcut: page.shortcut } : {}),
    command: { kind: 'navigate', path: page.path },
  }));

  return [
    { id: 'actions', heading: 'Actions', items: actions },
    { id: 'go-to', heading: 'Go to', items: goTo },
    { id: 'runs', heading: 'Runs', items: runs },
    { id: 'tasks', heading: 'Tasks', items: tasks },
    { id: 'agents', heading: 'Agents', items: agents },
    { id: 'notices', heading: 'Notices', items: notices },
  ];
}

/** The palette's shortcut view: every shortcut, each doing what it says when chosen. */
export function buildShortcutGroup(): PaletteGroup {
  return {
    id: 'shortcuts',
    heading: 'Keyboard shortcuts',
    items: shortcuts.map((shortcut) => ({
      id: `shortcut:${shortcut.id}`,
      label: shortcut.description,
      keywords: [],
      shortcut: shortcut.id,
      command: { kind: 'shortcut', id: shortcut.id },
    })),
  };
}

/** Before anything is typed, each list shows only its first (newest) few. */
export const browseLimit = 5;
/** Once something is typed, each group shows at most this many matches. */
export const searchLimit = 25;

/** With a query, the kinds of thing an operator looks up by name come before the fixed actions. */
const searchOrder: PaletteGroupId[] = ['runs', 'tasks', 'agents', 'notices', 'actions', 'go-to', 'shortcuts'];
const listGroups = new Set<PaletteGroupId>(['runs', 'tasks', 'agents', 'notices']);

function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function isWordStart(text: string, index: number): boolean {
  return index === 0 || !/[\p{L}\p{N}]/u.test(text[index - 1]!);
}

/** How well one word of the query fits: the label's start, a word's start, anywhere, or a keyword. */
function wordScore(word: string, label: string, keywords: string): number {
  let best = 0;
  for (let index = label.indexOf(word); index !== -1; index = label.indexOf(word, index + 1)) {
    best = Math.max(best, index === 0 ? 3 : isWordStart(label, index) ? 2 : 1);
    if (best === 3) break;
  }
  if (best > 0) return best;
  return keywords.includes(word) ? 0.5 : 0;
}

/** 0 when some word of the query is missing; higher is a better fit. A whole-label match wins. */
export function matchScore(item: Pick<PaletteItem, 'label' | 'keywords'>, query: string): number {
  const words = normalize(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return 1;
  const label = normalize(item.label);
  const keywords = normalize(item.keywords.join(' '));
  let total = 0;
  for (const word of words) {
    const score = wordScore(word, label, keywords);
    if (score === 0) return 0;
    total += score;
  }
  return label === words.join(' ') ? total + 10 : total;
}

/**
 * The groups as the palette lists them for a query: without one, every action and page and the first
 * few of each list; with one, only what matches, best first, and the group with the best match first
 * (so Enter on a task's name opens its latest run, and "new" picks New task).
 */
export function filterPaletteGroups(groups: readonly PaletteGroup[], query: string): PaletteGroup[] {
  if (!query.trim()) {
    return groups
      .map((group) => {
        const items = group.items.filter((item) => !item.searchOnly);
        return { ...group, items: listGroups.has(group.id) ? items.slice(0, browseLimit) : items };
      })
      .filter((group) => group.items.length > 0);
  }
  const scored = groups.map((group) => {
    const items = group.items
      .map((item) => ({ item, score: matchScore(item, query) }))
      .filter((entry) => entry.score > 0)
      // Array.prototype.sort is stable: equal scores keep their order (runs stay newest first).
      .sort((a, b) => b.score - a.score)
      .slice(0, searchLimit);
    return { group: { ...group, items: items.map((entry) => entry.item) }, best: items[0]?.score ?? 0 };
  });
  return scored
    .filter((entry) => entry.best > 0)
    .sort((a, b) => b.best - a.best || searchOrder.indexOf(a.group.id) - searchOrder.indexOf(b.group.id))
    .map((entry) => entry.group);
}

/**
 * With something typed, the palette also offers to search everything runs printed for it (the Search
 * page, with the text in its field): last, so Enter still picks the best name that matches.
 */
export function withOutputSearch(groups: PaletteGroup[], query: string): PaletteGroup[] {
  const text = query.trim();
  if (!text) return groups;
  const item: PaletteItem = {
    id: 'search:output',
    label: 'Search output…',
    hint: `for “${text}”`,
    keywords: [],
    command: { kind: 'navigate', path: actionPath({ kind: 'search', query: text }) },
  };
  // This one searches for what is typed: the plain action (which opens an empty Search) would be a twin.
  const others = groups
    .map((group) => ({ ...group, items: group.items.filter((each) => each.id !== 'action:search-output') }))
    .filter((group) => group.items.length > 0);
  return [...others, { id: 'search', heading: 'Search output', items: [item] }];
}
