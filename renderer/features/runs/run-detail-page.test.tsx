import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { RunDetail } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { actionPath, actionRoute } from '../../../shared/routes';
import { AppRoutes } from '../../app/app-routes';
import { aLandingPlan, aNotice, anAgent, aProvider, aRun, aRunDiff, aRunNetwork, aRunSummary } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { aRunUsage } from '../../testing/usage-fixtures';
import { RunDetailPage } from './run-detail-page';

function showRun(run: RunDetail, answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    getRun: () => run,
    getAgent: () => anAgent(),
    getCatalog: () => ({ providers: [aProvider()] }),
    listRuns: () => ({ runs: [aRunSummary()], nextCursor: null }),
    ...answers,
  });
  return { ...renderInConsole(<RunDetailPage runId={run.id} />, { client, route: `/runs/${run.id}` }), client };
}

describe('the run detail page', () => {
  it('a refused run leads with its notice and says nothing was started; it has no output, confinement or changes', async () => {
    const run = aRun({ status: 'refused', startedAt: null, endedAt: '2026-03-02T09:00:02.000Z', attempts: [], attempt: 0, cwd: null, notice: aNotice() });
    showRun(run);
    expect(await screen.findByRole('heading', { level: 1, name: 'Write the refund module' })).toBeTruthy();
    expect(screen.getByRole('article', { name: 'Codex writer needs an AI connection' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Choose an AI connection' }).getAttribute('href')).toBe('#/agents/agent_1/ai-connection');
    expect(screen.getByText(/no working folder, no process, and no AI connection key was opened\.$/)).toBeTruthy();
    expect(screen.getByText('Refused', { selector: '.status-badge' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Run output' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Confinement' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Changes' })).toBeNull();
  });

  it('a stranded run says so beside its output and offers Resume there, which opens the resumed run', async () => {
    const run = aRun({
      status: 'stranded',
      canResume: true,
      failure: { code: 'stranded', message: 'The console stopped while this run was working.', actionUrl: actionRoute({ kind: 'run', runId: 'run_1' }) },
      notice: aNotice({ kind: 'run_stranded', title: 'A run was stranded', actionUrl: actionRoute({ kind: 'run', runId: 'run_1' }), actionLabel: 'Open the run' }),
    });
    const { user, client } = showRun(run, {
      listRunEvents: () => ({ events: [], lastId: 0 }),
      getRunDiff: () => aRunDiff(),
      getLandingPlan: () => aLandingPlan(),
      listRunNetwork: () => aRunNetwork(),
      openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 0, totalBytes: 0, untilOffset: null }),
      closeRunOutput: () => ({ ok: true }),
      resumeRun: () => aRunSummary({ id: 'run_2', status: 'queued' }),
      getRunUsage: () => aRunUsage(),
    });
    expect(await screen.findByText('The console stopped while this run was working.')).toBeTruthy();
    expect(await screen.findByRole('region', { name: 'Run output' })).toBeTruthy();
    // Its notice only links back here: the failure box says it once, with no link to this very page.
    expect(screen.queryByRole('article', { name: 'A run was stranded' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Open the setting that fixes this' })).toBeNull();
    expect(screen.getAllByRole('button', { name: 'Resume' })).toHaveLength(1);
    expect(screen.getByText('Picks up where the agent stopped; the changes it made so far are kept.')).toBeTruthy();
    // A local run's Network panel says the console neither limited nor saw its connections.
    expect(await screen.findByText('This run had no sandbox: its network was yours, and the console neither limited nor saw it.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_2'));
    expect(client.inputsOf('resumeRun')).toEqual([{ runId: 'run_1' }]);
  });

  it('a run the console does not know says so, with the way back', async () => {
    showRun(aRun(), {
      getRun: () => {
        throw new OperatorError({ code: 'not_found', message: 'No run has that id.' });
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Run not found' })).toBeTruthy();
    expect(screen.getByText('run_1', { selector: 'code' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to the run list' }).getAttribute('href')).toBe('#/runs');
  });

  it('the run-changes route opens the run at its Changes, and ?land=1&target= opens the Land dialog at that branch', async () => {
    const client = fakeOperatorClient({
      getRun: () => aRun(),
      getAgent: () => anAgent(),
      getCatalog: () => ({ providers: [aProvider()] }),
      listRunEvents: () => ({ events: [], lastId: 0 }),
      getRunDiff: () => aRunDiff(),
      getLandingPlan: ({ target }) => aLandingPlan(target ? { target } : {}),
      listRuns: () => ({ runs: [aRunSummary()], nextCursor: null }),
      listRunNetwork: () => aRunNetwork(),
      openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 0, totalBytes: 0, untilOffset: null }),
      closeRunOutput: () => ({ ok: true }),
      getRunUsage: () => aRunUsage(),
    });
    renderInConsole(<AppRoutes />, { client, route: actionPath({ kind: 'run-changes', runId: 'run_1', land: true, target: 'release' }) });
    const dialog = await screen.findByRole('dialog', { name: 'Land the run’s work' });
    expect(within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Target branch' }).value).toBe('release');
    expect(await within(dialog).findByText(/^Lands cleanly in release/)).toBeTruthy();
    expect(client.inputsOf('getLandingPlan')).toContainEqual({ runId: 'run_1', target: 'release' });
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput')).toHaveLength(1));
  });
});
