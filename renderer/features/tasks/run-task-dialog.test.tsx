import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { taskSchema, type Task } from '../../../shared/entities';
import { useUiStore } from '../../state/ui-store';
import { anAgent, aProvider, aRunSummary } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { RunTaskDialog } from './run-task-dialog';

const task: Task = taskSchema.parse({
  id: 'task_1',
  projectId: 'prj_1',
  title: 'Write the refund module',
  prompt: 'Write it.',
  planPath: null,
  reviewPath: null,
  archived: false,
  createdAt: '2026-03-02T09:00:00.000Z',
  updatedAt: '2026-03-02T09:00:00.000Z',
  latestRun: null,
});

const agents = [
  anAgent({ id: 'agent_1', name: 'Codex writer' }),
  anAgent({ id: 'agent_2', name: 'Claude writer', providerId: 'claude', model: 'sonnet' }),
  anAgent({ id: 'agent_3', name: 'Gemini writer', providerId: 'gemini', model: 'gemini-pro' }),
];

function showDialog(answers: ChannelAnswers = {}) {
  const onClose = vi.fn();
  const client = fakeOperatorClient({ listAgents: () => agents, getCatalog: () => ({ providers: [aProvider()] }), ...answers });
  const rendered = renderInConsole(<RunTaskDialog task={task} onClose={onClose} />, { client, route: '/tasks' });
  return { ...rendered, client, onClose };
}

const agentBox = (name: string) => screen.getByRole('checkbox', { name });

describe('the Run dialog', () => {
  beforeEach(() => useUiStore.getState().setRunAgentId(null));

  it('one agent is ticked already: Start run starts it alone and opens the run', async () => {
    const { user, client } = showDialog({ startRun: () => aRunSummary({ id: 'run_2', status: 'queued' }) });
    expect(await screen.findByRole('checkbox', { name: 'Codex writer' })).toBeTruthy();
    expect(agentBox('Codex writer')).toHaveProperty('checked', true);
    expect(agentBox('Claude writer')).toHaveProperty('checked', false);
    expect(document.activeElement).toBe(agentBox('Codex writer'));

    await user.click(screen.getByRole('button', { name: 'Start run' }));
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_2'));
    expect(client.inputsOf('startRun')).toEqual([{ taskId: 'task_1', agentId: 'agent_1' }]);
    expect(client.inputsOf('startRuns')).toEqual([]);
  });

  it('several agents ticked start one run each with startRuns, and Compare opens', async () => {
    const { user, client } = showDialog({
      startRuns: ({ agentIds }) => ({
        runs: agentIds.map((agentId, index) => aRunSummary({ id: `run_${index + 2}`, agentId, status: 'queued' })),
      }),
    });
    await screen.findByRole('checkbox', { name: 'Codex writer' });
    // Keyboard: Tab to the next agent and tick it with Space.
    await user.tab();
    expect(document.activeElement).toBe(agentBox('Claude writer'));
    await user.keyboard(' ');
    await user.click(agentBox('Gemini writer'));
    expect(screen.getByRole('button', { name: 'Start 3 runs' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Start 3 runs' }));
    await vi.waitFor(() => expect(currentRoute()).toBe('/tasks/task_1/compare'));
    expect(client.inputsOf('startRuns')).toEqual([{ taskId: 'task_1', agentIds: ['agent_1', 'agent_2', 'agent_3'] }]);
    expect(client.inputsOf('startRun')).toEqual([]);
  });

  it('a refused one is said, with each run’s status, before Compare', async () => {
    const { user } = showDialog({
      startRuns: () => ({
        runs: [
          aRunSummary({ id: 'run_2', agentId: 'agent_1', agentName: 'Codex writer', status: 'queued' }),
          aRunSummary({ id: 'run_3', agentId: 'agent_2', agentName: 'Claude writer', status: 'refused', startedAt: null }),
        ],
      }),
    });
    await screen.findByRole('checkbox', { name: 'Codex writer' });
    await user.click(agentBox('Claude writer'));
    await user.click(screen.getByRole('button', { name: 'Start 2 runs' }));

    const outcome = await screen.findByRole('status');
    expect(within(outcome).getByText('1 run started, 1 refused. A refused run says why on its page.')).toBeTruthy();
    const items = within(within(outcome).getByRole('list', { name: 'Runs started' })).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual(['QueuedCodex writer', 'RefusedClaude writer']);
    expect(within(items[1]!).getByRole('link', { name: 'Claude writer' }).getAttribute('href')).toBe('#/runs/run_3');
    expect(currentRoute()).toBe('/tasks');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));

    await user.click(screen.getByRole('button', { name: 'Compare the runs' }));
    expect(currentRoute()).toBe('/tasks/task_1/compare');
  });

  it('with no agent ticked it asks for one and starts nothing', async () => {
    const { user, client } = showDialog();
    await screen.findByRole('checkbox', { name: 'Codex writer' });
    await user.click(agentBox('Codex writer'));
    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(screen.getByRole('alert').textContent).toBe('Tick at least one agent to run the task on.');
    expect(client.calls.filter((call) => call.channel === 'startRun' || call.channel === 'startRuns')).toEqual([]);
  });
});
