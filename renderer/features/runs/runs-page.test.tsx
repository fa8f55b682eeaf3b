import { act, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useUiStore } from '../../state/ui-store';
import { aDiskUsage, anAgent, aRunSummary, landedIn, notLanded } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { RunsPage } from './runs-page';

const runs = [
  aRunSummary({ id: 'run_1', agentName: 'Codex writer', landing: { ...notLanded, diskBytes: 1_200_000_000 } }),
  aRunSummary({ id: 'run_2', agentName: 'Claude writer', landing: landedIn('main', { diskBytes: 2_200_000_000 }) }),
  aRunSummary({ id: 'run_3', agentName: 'Gemini writer', landing: { ...notLanded, state: 'discarded', discardedAt: '2026-03-02T10:00:00.000Z', filesRemovedAt: '2026-03-03T10:00:00.000Z' } }),
];

function showRuns(answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    listRuns: () => ({ runs, nextCursor: null }),
    listAgents: () => [anAgent()],
    listProjects: () => [],
    getDiskUsage: () => aDiskUsage(),
    ...answers,
  });
  return { ...renderInConsole(<RunsPage />, { client, route: '/runs' }), client };
}

/** The text of each cell of a run's row, by the run's agent. */
async function rowOf(agentName: string) {
  const cell = await screen.findByRole('cell', { name: agentName });
  return within(cell.closest('tr')!);
}

describe('the Runs page and the runs’ landing', () => {
  beforeEach(() => useUiStore.getState().clearRunFilters());

  it('shows each run’s landing state and its size on disk', async () => {
    showRuns();
    const codex = await rowOf('Codex writer');
    expect(codex.getByText('Not landed')).toBeTruthy();
    expect(codex.getByText('1.2 GB')).toBeTruthy();
    const claude = await rowOf('Claude writer');
    expect(claude.getByText('Landed → main')).toBeTruthy();
    expect(claude.getByText('2.2 GB')).toBeTruthy();
    const gemini = await rowOf('Gemini writer');
    expect(gemini.getByText('Discarded')).toBeTruthy();
    expect(gemini.getByText('Files removed')).toBeTruthy();
    expect(gemini.getByText('—')).toBeTruthy();
  });

  it('the Landing filter asks the core for the runs in that landing state', async () => {
    const { user, client } = showRuns();
    await rowOf('Codex writer');
    client.answer({ listRuns: () => ({ runs: [runs[1]!], nextCursor: null }) });
    await user.selectOptions(screen.getByLabelText('Landing'), 'Landed');
    await vi.waitFor(() => expect(screen.queryByRole('cell', { name: 'Codex writer' })).toBeNull());
    expect(screen.getByRole('cell', { name: 'Claude writer' })).toBeTruthy();
    expect(client.inputsOf('listRuns').at(-1)).toEqual({ limit: 50, landingState: 'landed' });
  });

  it('above the list: the total disk, the largest runs, Refresh sizes measures again, and Clean up is a link away', async () => {
    const { user, client } = showRuns();
    const panel = await screen.findByRole('region', { name: 'Disk used by runs' });
    expect(within(panel).getByText(/^Task roots take/).textContent).toMatch(/^Task roots take 3\.4 GB \(2 runs with files on disk\)/);
    const largest = within(panel).getByRole('list', { name: 'Largest runs on disk' });
    expect(within(largest).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Write the refund module · Claude writer 2.2 GB',
      'Write the refund module · Codex writer 1.2 GB',
    ]);
    expect(within(largest).getByRole('link', { name: 'Write the refund module · Claude writer' }).getAttribute('href')).toBe('#/runs/run_2');
    expect(within(panel).getByRole('link', { name: 'Clean up' }).getAttribute('href')).toBe('#/cleanup');

    client.answer({ getDiskUsage: () => aDiskUsage({ totalBytes: 900_000, runsWithFiles: 1, largest: [] }) });
    await user.click(within(panel).getByRole('button', { name: 'Refresh sizes' }));
    await vi.waitFor(() => expect(within(panel).getByText(/^Task roots take/).textContent).toMatch(/^Task roots take 900 kB \(1 run with files on disk\)/));
    expect(within(panel).queryByRole('list', { name: 'Largest runs on disk' })).toBeNull();
    expect(client.inputsOf('getDiskUsage')).toContainEqual({ refresh: true });
  });
});

describe('the Runs page while the console service cannot be reached', () => {
  beforeEach(() => useUiStore.getState().clearRunFilters());

  it('calls a run that has not ended Unverifiable, never Running, until the service answers again', async () => {
    const { client } = showRuns({
      listRuns: () => ({
        runs: [aRunSummary({ id: 'run_1', agentName: 'Codex writer', status: 'running' }), aRunSummary({ id: 'run_2', agentName: 'Claude writer', status: 'succeeded' })],
        nextCursor: null,
      }),
    });
    const codex = await rowOf('Codex writer');
    expect(codex.getByText('Running')).toBeTruthy();

    act(() => client.setTransportState('reconnecting'));
    expect(codex.queryByText('Running')).toBeNull();
    expect(codex.getByText('Unverifiable').getAttribute('title')).toMatch(/cannot be reached, so whether this run still goes on is not known/);
    // An ended run is what it was: the ledger said so before the service went away.
    expect((await rowOf('Claude writer')).getByText('Succeeded')).toBeTruthy();

    act(() => client.setTransportState('connected'));
    expect(codex.getByText('Running')).toBeTruthy();
  });
});

describe('the Runs page with runs on SSH hosts', () => {
  beforeEach(() => useUiStore.getState().clearRunFilters());

  it('calls a running run whose host cannot be reached Unverifiable, saying it is the host, and shows what runs take on each host', async () => {
    showRuns({
      listRuns: () => ({
        runs: [
          aRunSummary({ id: 'run_1', agentName: 'Codex writer', status: 'running', hostUnreachableSince: '2026-03-02T10:00:00.000Z' }),
          aRunSummary({ id: 'run_2', agentName: 'Claude writer', status: 'running' }),
        ],
        nextCursor: null,
      }),
      getDiskUsage: () =>
        aDiskUsage({
          hosts: [
            { hostId: 'hst_1', name: 'build-box', runs: 3, bytes: 45_000_000, gitStores: 2, gitStoreBytes: 5_000_000, error: null, measuredAt: '2026-03-02T10:00:00.000Z' },
            { hostId: 'hst_2', name: 'gpu-box', runs: 0, bytes: null, gitStores: 0, gitStoreBytes: null, error: 'ssh could not reach gpu-box', measuredAt: '2026-03-02T10:00:00.000Z' },
          ],
        }),
    });
    const codex = await rowOf('Codex writer');
    expect(codex.queryByText('Running')).toBeNull();
    expect(codex.getByText('Unverifiable').getAttribute('title')).toMatch(/SSH host this run executes on cannot be reached/);
    expect((await rowOf('Claude writer')).getByText('Running')).toBeTruthy();
    const panel = await screen.findByRole('region', { name: 'Disk used by runs' });
    const hosts = within(panel).getByRole('list', { name: 'Disk used on SSH hosts' });
    expect(within(hosts).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'On build-box: 45 MB (3 runs, 2 project git stores of 5 MB)',
      'On gpu-box: not measured (ssh could not reach gpu-box). Refresh sizes once it answers.',
    ]);
  });
});
