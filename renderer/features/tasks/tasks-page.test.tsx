import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { taskSchema } from '../../../shared/entities';
import { anAgent } from '../../testing/contract-fixtures';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { TasksPage } from './tasks-page';

const at = '2026-03-02T09:00:00.000Z';
const task = (id: string, title: string, latestRun: { id: string; status: 'succeeded' } | null) =>
  taskSchema.parse({ id, projectId: 'prj_1', title, prompt: '', planPath: null, reviewPath: null, archived: false, createdAt: at, updatedAt: at, latestRun });

describe('the Tasks page’s way to Compare', () => {
  it('a task that has run links to its Compare page; one that never ran does not', async () => {
    const client = fakeOperatorClient({
      listProjects: () => [{ id: 'prj_1', name: 'Checkout', path: '/work/checkout', isGitRepo: true, createdAt: at }],
      listTasks: () => [task('task_1', 'Write the refund module', { id: 'run_1', status: 'succeeded' }), task('task_2', 'Document the refunds', null)],
      listAgents: () => [anAgent()],
    });
    renderInConsole(<TasksPage />, { client, route: '/tasks' });
    const list = await screen.findByRole('list', { name: 'Tasks in Checkout' });
    expect(within(list).getByRole('link', { name: 'Compare runs of Write the refund module' }).getAttribute('href')).toBe('#/tasks/task_1/compare');
    expect(within(list).queryByRole('link', { name: 'Compare runs of Document the refunds' })).toBeNull();
  });
});
