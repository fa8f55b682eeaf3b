import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelOutput } from '../../../shared/contract';
import type { RunDetail } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { aNotice, anAgent, aRun, aRunSummary } from '../../testing/contract-fixtures';
import { deferred, fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { RunActions } from './run-actions';

const ended = { canStop: false, endedAt: '2026-03-02T09:02:01.000Z' };

function showActions(run: RunDetail, answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({ getAgent: () => anAgent(), listRuns: () => ({ runs: [aRunSummary()], nextCursor: null }), ...answers });
  const rendered = renderInConsole(<RunActions run={run} />, { client, route: `/runs/${run.id}` });
  return { ...rendered, client };
}

/** The header's buttons, in the order they sit. */
const buttonNames = () => screen.getAllByRole('button').map((button) => button.textContent);

describe('the run header’s actions', () => {
  it('a running run offers Stop alone, and says it is stopping until the core answers', async () => {
    const answer = deferred<ChannelOutput<'stopRun'>>();
    const { user, client } = showActions(aRun({ status: 'running', canStop: true, endedAt: null }), { stopRun: () => answer.promise });
    expect(buttonNames()).toEqual(['Stop']);
    expect(screen.getByRole('link', { name: 'Back to the run list' }).getAttribute('href')).toBe('#/runs');

    const stop = screen.getByRole('button', { name: 'Stop' });
    await user.click(stop);
    expect(await screen.findByText('Stopping…')).toBeTruthy();
    expect(stop.getAttribute('aria-disabled')).toBe('true');
    await user.click(stop);
    answer.resolve(aRunSummary({ status: 'cancelled' }));
    await vi.waitFor(() => expect(screen.queryByText('Stopping…')).toBeNull());
    expect(client.inputsOf('stopRun')).toEqual([{ runId: 'run_1' }]);
  });

  it('a failed run that can resume leads with Resume, which opens the resumed run', async () => {
    const run = aRun({ status: 'failed', canResume: true, ...ended });
    const { user, client } = showActions(run, { resumeRun: () => aRunSummary({ id: 'run_2', status: 'queued' }) });
    expect(buttonNames()).toEqual(['Delete run', 'Archive run', 'Resume', 'Run again']);
    expect(screen.getByRole('button', { name: 'Resume' }).className).toContain('button--primary');
    expect(screen.getByRole('button', { name: 'Run again' }).className).not.toContain('button--primary');

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_2'));
    expect(client.inputsOf('resumeRun')).toEqual([{ runId: 'run_1' }]);
  });

  it('Run again starts the same task with the same agent', async () => {
    const { user, client } = showActions(aRun(ended), { startRun: () => aRunSummary({ id: 'run_3', status: 'queued' }) });
    const runAgain = await screen.findByRole('button', { name: 'Run again' });
    expect(runAgain.className).toContain('button--primary');
    await user.click(runAgain);
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_3'));
    expect(client.inputsOf('startRun')).toEqual([{ taskId: 'task_1', agentId: 'agent_1' }]);
  });

  it('an archived run can no longer resume or be archived, only deleted or run again', () => {
    showActions(aRun({ status: 'failed', canResume: true, archived: true, ...ended }));
    expect(buttonNames()).toEqual(['Delete run', 'Run again']);
  });

  it('Archive run asks first, then archives', async () => {
    const { user, client } = showActions(aRun(ended), { archiveRun: () => aRunSummary({ archived: true }) });
    await user.click(screen.getByRole('button', { name: 'Archive run' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Archive run' });
    expect(within(dialog).getByText(/^Archive this run\? Its record stays/)).toBeTruthy();
    expect(client.inputsOf('archiveRun')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Archive' }));
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(client.inputsOf('archiveRun')).toEqual([{ runId: 'run_1' }]);
  });

  it('a refused run offers Run again only once its cause is gone', async () => {
    const refused = { status: 'refused' as const, startedAt: null, attempts: [], ...ended };
    const openNotice = showActions(aRun({ ...refused, notice: aNotice() }));
    await vi.waitFor(() => expect(openNotice.client.inputsOf('getAgent')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Run again' })).toBeNull();
    openNotice.unmount();

    // No notice, and the agent's check says a run would now be admitted.
    showActions(aRun(refused));
    expect(await screen.findByRole('button', { name: 'Run again' })).toBeTruthy();
  });

  it('a refused run whose agent still would be refused offers no Run again', async () => {
    const refusedAgent = anAgent({ verification: { state: 'refused', code: 'configuration_incomplete', configRevision: 'rev_1', checkedAt: null } });
    const { client } = showActions(aRun({ status: 'refused', startedAt: null, attempts: [], ...ended }), { getAgent: () => refusedAgent });
    await vi.waitFor(() => expect(client.inputsOf('getAgent')).toHaveLength(1));
    // Let the agent's answer render: a ready agent's Run again shows by then (the test above).
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByRole('button', { name: 'Run again' })).toBeNull();
  });

  it('says why Stop failed', async () => {
    const { user } = showActions(aRun({ status: 'running', canStop: true, endedAt: null }), {
      stopRun: () => {
        throw new OperatorError({ code: 'conflict', message: 'The run is being resumed: stop it once it has started.' });
      },
    });
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not stop the run. The run is being resumed: stop it once it has started.');
  });

  it('a stranded run resumes from its failure box, not from the header', () => {
    showActions(aRun({ status: 'stranded', canResume: true, failure: { code: 'stranded', message: 'The console stopped while it ran.' }, ...ended }));
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
  });
});

describe('the run header’s way to Compare', () => {
  it('links to the task’s Compare page once the task has more than one run', async () => {
    const { client } = showActions(aRun(ended), {
      listRuns: () => ({ runs: [aRunSummary(), aRunSummary({ id: 'run_2', agentId: 'agent_2' })], nextCursor: null }),
    });
    const link = await screen.findByRole('link', { name: 'Compare runs' });
    expect(link.getAttribute('href')).toBe('#/tasks/task_1/compare');
    expect(client.inputsOf('listRuns')).toEqual([{ taskId: 'task_1', limit: 2 }]);
  });

  it('offers no Compare for a task’s only run', async () => {
    const { client } = showActions(aRun(ended));
    await vi.waitFor(() => expect(client.inputsOf('listRuns')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByRole('link', { name: 'Compare runs' })).toBeNull();
  });
});
