import { describe, expect, it } from 'vitest';
import type { Agent, Notice, Project, RunStatus, RunSummary, Task } from '../../../shared/entities';
import { browseLimit, buildPaletteGroups, buildShortcutGroup, filterPaletteGroups, matchScore, withOutputSearch, type PaletteData, type PaletteGroup } from './palette-items';

const at = '2026-03-01T10:00:00.000Z';

function run(id: string, taskTitle: string, status: RunStatus, agentName = 'Codex fast'): RunSummary {
  return { id, taskId: `tsk_${id}`, taskTitle, agentId: 'agt_1', agentName, projectId: 'prj_1', status, attempt: 1, createdAt: at, startedAt: at, endedAt: null, archived: false, hostUnreachableSince: null, hostWorkLeftSince: null, landing: { state: 'not_landed', landed: null, pushed: null, discardedAt: null, filesRemovedAt: null, diskBytes: null } };
}

function task(id: string, title: string, projectId = 'prj_1', archived = false): Task {
  return { id, projectId, title, prompt: '', planPath: null, reviewPath: null, archived, createdAt: at, updatedAt: at, latestRun: null };
}

function project(id: string, name: string): Project {
  return { id, name, path: `/src/${name}`, isGitRepo: true, createdAt: at };
}

const agent = { id: 'agt_1', name: 'Codex fast', model: 'gpt-5', providerId: 'codex' } as Agent;

function notice(id: string, title: string, message: string, status: Notice['status'] = 'open'): Notice {
  return { id, title, message, status } as Notice;
}

const data: PaletteData = {
  runs: [run('run_2', 'Plan the refund flow', 'running'), run('run_1', 'Fix the invoice rounding', 'failed')],
  tasks: [task('tsk_1', 'Plan the refund flow'), task('tsk_2', 'Fix the invoice rounding'), task('tsk_3', 'Old chores', 'prj_1', true)],
  agents: [agent],
  notices: [notice('ntc_1', 'Codex fast needs an AI connection', 'Add an API key in Settings'), notice('ntc_2', 'Resolved one', 'gone', 'resolved')],
  projects: [project('prj_1', 'checkout')],
};

const labels = (groups: PaletteGroup[]) => Object.fromEntries(groups.map((group) => [group.heading, group.items.map((item) => item.label)]));

describe('the palette before anything is typed', () => {
  it('lists actions, pages and the newest of each list; per-task Run items wait for a search', () => {
    const groups = filterPaletteGroups(buildPaletteGroups(data), '');
    expect(groups.map((group) => group.heading)).toEqual(['Actions', 'Go to', 'Runs', 'Tasks', 'Agents', 'Notices']);
    const shown = labels(groups);
    expect(shown['Actions']).toEqual([
      'New task',
      'Search output…',
      'Open settings: Projects',
      'Open settings: Environments',
      'Open settings: Hosts',
      'Open settings: AI connections',
      'Open settings: Budgets',
      'Open settings: Prices',
      'Open settings: Notifications',
      'Open settings: About',
      'Keyboard shortcuts',
      'Stop Plan the refund flow — Codex fast',
    ]);
    expect(shown['Go to']).toEqual(['Runs', 'Tasks', 'Agents', 'Notices', 'Usage', 'Clean up', 'Settings']);
    expect(shown['Runs']).toEqual(['Plan the refund flow — Codex fast · Running', 'Fix the invoice rounding — Codex fast · Failed']);
    // Archived tasks and closed notices are not offered.
    expect(shown['Tasks']).toEqual(['Plan the refund flow', 'Fix the invoice rounding']);
    expect(shown['Notices']).toEqual(['Codex fast needs an AI connection']);
  });

  it('shows only a few of a long list', () => {
    const many = { ...data, runs: Array.from({ length: 12 }, (_, index) => run(`run_${index}`, `Task ${index}`, 'succeeded')) };
    const runs = filterPaletteGroups(buildPaletteGroups(many), '').find((group) => group.id === 'runs');
    expect(runs?.items).toHaveLength(browseLimit);
    expect(runs?.items[0]?.label).toMatch(/^Task 0 /);
  });

  it('names a task by its project too once there is more than one project', () => {
    const two = { ...data, projects: [project('prj_1', 'checkout'), project('prj_2', 'billing')] };
    const tasks = buildPaletteGroups(two).find((group) => group.id === 'tasks');
    expect(tasks?.items[0]?.label).toBe('Plan the refund flow · checkout');
  });
});

describe('searching the palette', () => {
  it("finds a run by its task's name and puts it first, before the task and its Run action", () => {
    const groups = filterPaletteGroups(buildPaletteGroups(data), 'refund fl');
    expect(groups[0]?.heading).toBe('Runs');
    expect(groups[0]?.items[0]?.label).toBe('Plan the refund flow — Codex fast · Running');
    expect(groups[0]?.items[0]?.command).toEqual({ kind: 'navigate', path: '/runs/run_2' });
    expect(labels(groups)['Actions']).toEqual(['Stop Plan the refund flow — Codex fast', 'Run Plan the refund flow…']);
  });

  it('puts the action or page that is named in full first', () => {
    expect(filterPaletteGroups(buildPaletteGroups(data), 'new task')[0]?.items[0]?.label).toBe('New task');
    expect(filterPaletteGroups(buildPaletteGroups(data), 'runs')[0]?.items[0]?.label).toBe('Runs');
    expect(filterPaletteGroups(buildPaletteGroups(data), 'settings')[0]?.items[0]?.label).toBe('Settings');
  });

  it('finds a notice by its message and an agent by its model, and drops groups with no match', () => {
    expect(labels(filterPaletteGroups(buildPaletteGroups(data), 'api key'))).toEqual({ Notices: ['Codex fast needs an AI connection'] });
    expect(labels(filterPaletteGroups(buildPaletteGroups(data), 'gpt-5'))).toEqual({ Agents: ['Codex fast'] });
    expect(labels(filterPaletteGroups(buildPaletteGroups(data), 'disk'))).toEqual({ 'Go to': ['Clean up'] });
    expect(labels(filterPaletteGroups(buildPaletteGroups(data), 'cost'))).toEqual({ 'Go to': ['Usage'] });
    expect(filterPaletteGroups(buildPaletteGroups(data), 'zebra')).toEqual([]);
  });

  it('needs every word, in any order, ignoring case and accents', () => {
    expect(matchScore({ label: 'Plan the refund flow', keywords: [] }, 'FLOW plan')).toBeGreaterThan(0);
    expect(matchScore({ label: 'Plan the refund flow', keywords: [] }, 'plan invoice')).toBe(0);
    expect(matchScore({ label: 'Café menu', keywords: [] }, 'cafe')).toBeGreaterThan(0);
  });

  it('ranks the start of the label over a word inside it over a part of a word', () => {
    const start = matchScore({ label: 'Refund flow', keywords: [] }, 'ref');
    const word = matchScore({ label: 'Plan the refund flow', keywords: [] }, 'ref');
    const inside = matchScore({ label: 'Prefer defaults', keywords: [] }, 'ref');
    const keyword = matchScore({ label: 'Something', keywords: ['refund'] }, 'ref');
    expect(start).toBeGreaterThan(word);
    expect(word).toBeGreaterThan(inside);
    expect(inside).toBeGreaterThan(keyword);
    expect(keyword).toBeGreaterThan(0);
  });
});

describe('the shortcut view', () => {
  it('lists every shortcut, each doing what it says', () => {
    const group = buildShortcutGroup();
    expect(group.items.map((item) => item.label)).toContain('Go to Tasks');
    expect(group.items.find((item) => item.label === 'New task')?.command).toEqual({ kind: 'shortcut', id: 'new-task' });
  });
});

describe('searching output from the palette', () => {
  it('offers to search everything runs printed for what was typed, after the names that match', () => {
    const groups = withOutputSearch(filterPaletteGroups(buildPaletteGroups(data), 'refund'), 'refund ');
    expect(groups.at(0)?.id).toBe('runs');
    expect(groups.at(-1)).toMatchObject({
      heading: 'Search output',
      items: [{ label: 'Search output…', hint: 'for “refund”', command: { kind: 'navigate', path: '/search?q=refund' } }],
    });
    // Typing its own name offers it once, with the text.
    const named = withOutputSearch(filterPaletteGroups(buildPaletteGroups(data), 'search output'), 'search output');
    expect(named.flatMap((group) => group.items).filter((item) => item.label === 'Search output…')).toHaveLength(1);
    expect(withOutputSearch(filterPaletteGroups(buildPaletteGroups(data), ''), '  ').some((group) => group.id === 'search')).toBe(false);
  });
});
