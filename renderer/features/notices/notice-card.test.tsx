import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelOutput } from '../../../shared/contract';
import { OperatorError } from '../../../shared/errors';
import { aNotice, aRunSummary } from '../../testing/contract-fixtures';
import { deferred, fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { NoticeCard } from './notice-card';

const title = 'Codex writer needs an AI connection';
const resolvedNotice = aNotice({
  status: 'resolved',
  resolvedAt: '2026-03-02T10:00:00.000Z',
  resolution: 'Codex writer now uses the AI connection “Team key”.',
  canRunAgain: true,
});

function ranAgain(changes: Partial<ChannelOutput<'runAgain'>> = {}): ChannelOutput<'runAgain'> {
  return { notice: { ...resolvedNotice, canRunAgain: false, rerunRunIds: ['run_2'] }, runs: [aRunSummary({ id: 'run_2', status: 'queued' })], alreadyRan: false, ...changes };
}

describe('a notice card', () => {
  it('says what happened and links to the fix; Dismiss puts it away', async () => {
    const notice = aNotice();
    const client = fakeOperatorClient({ dismissNotice: () => ({ ...notice, status: 'dismissed' }) });
    const { user } = renderInConsole(<NoticeCard notice={notice} />, { client, route: '/notices' });
    const card = screen.getByRole('article', { name: title });
    expect(within(card).getByText('Error')).toBeTruthy();
    expect(within(card).getByText(notice.message)).toBeTruthy();
    expect(within(card).getByRole('link', { name: 'Choose an AI connection' }).getAttribute('href')).toBe('#/agents/agent_1/ai-connection');
    expect(within(card).queryByRole('button', { name: 'Run again' })).toBeNull();

    await user.click(within(card).getByRole('button', { name: 'Dismiss', description: title }));
    expect(client.inputsOf('dismissNotice')).toEqual([{ noticeId: notice.id }]);
  });

  it('offers no link to the page the operator is already on', () => {
    renderInConsole(<NoticeCard notice={aNotice()} />, { client: fakeOperatorClient(), route: '/agents/agent_1/ai-connection' });
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByRole('button', { name: 'Dismiss' })).toBeTruthy();
  });

  it('once resolved says what fixed it and what it had asked, and Run again starts the task once, however fast the clicks', async () => {
    const answer = deferred<ChannelOutput<'runAgain'>>();
    const client = fakeOperatorClient({ runAgain: () => answer.promise });
    const onRanAgain = vi.fn();
    renderInConsole(<NoticeCard notice={resolvedNotice} onRanAgain={onRanAgain} />, { client, route: '/notices' });
    const card = screen.getByRole('article', { name: title });
    expect(within(card).getByText('Resolved', { selector: '.status-badge' })).toBeTruthy();
    expect(within(card).getByText('Codex writer now uses the AI connection “Team key”.')).toBeTruthy();
    expect(within(card).getByText(`It had said: ${resolvedNotice.message}`)).toBeTruthy();
    expect(within(card).getByText(/Run again starts the refused task once more\.$/)).toBeTruthy();
    // The fix is made: no link to it any more.
    expect(within(card).queryByRole('link')).toBeNull();

    const runAgain = within(card).getByRole('button', { name: 'Run again', description: title });
    // A double-click lands both clicks before React renders again (act holds the render back until both are in).
    act(() => {
      runAgain.click();
      runAgain.click();
    });
    expect(await within(card).findByText('Starting the task again…')).toBeTruthy();
    answer.resolve(ranAgain());
    const link = await within(card).findByRole('link', { name: 'Open the new run' });
    expect(link.getAttribute('href')).toBe('#/runs/run_2');
    expect(client.inputsOf('runAgain')).toEqual([{ noticeId: resolvedNotice.id }]);
    expect(onRanAgain).toHaveBeenCalledWith(resolvedNotice.id);
    expect(within(card).queryByText(/nothing new was started/)).toBeNull();
  });

  it('says so when the notice had already run its task again, or when there was nothing left to start', async () => {
    const client = fakeOperatorClient({ runAgain: () => ranAgain({ alreadyRan: true }) });
    const { user, unmount } = renderInConsole(<NoticeCard notice={resolvedNotice} />, { client, route: '/notices' });
    await user.click(screen.getByRole('button', { name: 'Run again' }));
    expect(await screen.findByText('This notice had already run its task again; nothing new was started.')).toBeTruthy();
    unmount();

    client.answer({ runAgain: () => ranAgain({ runs: [], notice: resolvedNotice }) });
    const again = renderInConsole(<NoticeCard notice={resolvedNotice} />, { client, route: '/notices' });
    await again.user.click(screen.getByRole('button', { name: 'Run again' }));
    expect(await screen.findByText('Nothing was started: the refused task or its agent is no longer in the console.')).toBeTruthy();
  });

  it('shows why Run again failed, and lets the operator try again', async () => {
    const client = fakeOperatorClient({
      runAgain: () => {
        throw new OperatorError({ code: 'conflict', message: 'The agent is being changed: try again in a moment.' });
      },
    });
    const { user } = renderInConsole(<NoticeCard notice={resolvedNotice} />, { client, route: '/notices' });
    await user.click(screen.getByRole('button', { name: 'Run again' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not run the task again. The agent is being changed: try again in a moment.');

    client.answer({ runAgain: () => ranAgain() });
    await user.click(screen.getByRole('button', { name: 'Run again' }));
    expect(await screen.findByRole('link', { name: 'Open the new run' })).toBeTruthy();
    expect(client.inputsOf('runAgain')).toHaveLength(2);
  });

  it('a dismissed notice says so, offers no Dismiss or Run again, and still links to its fix', () => {
    const notice = aNotice({ status: 'dismissed', resolvedAt: '2026-03-02T10:00:00.000Z' });
    renderInConsole(<NoticeCard notice={notice} />, { client: fakeOperatorClient(), route: '/notices' });
    const card = screen.getByRole('article', { name: title });
    expect(within(card).getByText('You dismissed this notice.')).toBeTruthy();
    expect(within(card).getByText(`It had said: ${notice.message}`)).toBeTruthy();
    expect(within(card).queryByRole('button')).toBeNull();
    // Its cause may still be there: dismissing it put the notice away, not the fix.
    expect(within(card).getByRole('link', { name: 'Choose an AI connection' })).toBeTruthy();
  });
});

describe('a Disk full notice', () => {
  const diskFull = aNotice({
    kind: 'disk_full',
    title: 'Disk full',
    message: 'The disk of the data directory /srv/console is full (1.2 MiB free; new runs need 256 MiB).',
    actionUrl: '#/cleanup',
    actionLabel: 'Open Clean up',
    agentId: null,
    code: 'disk_full',
    reason: 'disk_full',
  });

  it('links to Clean up and opens the data folder, then shows its path to copy', async () => {
    const client = fakeOperatorClient({ openDataFolder: () => ({ path: '/srv/console', opened: false }) });
    const { user } = renderInConsole(<NoticeCard notice={diskFull} />, { client, route: '/notices' });
    const card = screen.getByRole('article', { name: 'Disk full' });
    expect(within(card).getByRole('link', { name: 'Open Clean up' }).getAttribute('href')).toBe('#/cleanup');

    await user.click(within(card).getByRole('button', { name: 'Open the data folder' }));
    expect(client.inputsOf('openDataFolder')).toHaveLength(1);
    expect(await within(card).findByText('/srv/console')).toBeTruthy();
    expect(within(card).getByRole('status').textContent).toMatch(/could not open a file manager on this machine/);
  });

  it('offers neither once space is back', () => {
    renderInConsole(<NoticeCard notice={{ ...diskFull, status: 'resolved', resolvedAt: '2026-03-02T10:00:00.000Z', resolution: 'Space is back: 3.1 GiB free on the data directory’s disk.' }} />, {
      client: fakeOperatorClient(),
      route: '/notices',
    });
    expect(screen.queryByRole('button', { name: 'Open the data folder' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Open Clean up' })).toBeNull();
    expect(screen.getByText('Space is back: 3.1 GiB free on the data directory’s disk.')).toBeTruthy();
  });
});

describe('a notice about a run’s work left on its host', () => {
  const leftOnHost = aNotice({
    kind: 'host_work_not_fetched',
    title: 'Run’s work left on its host',
    code: 'ssh_failed',
    reason: 'unreachable',
    runId: 'run_1',
    actionUrl: '#/runs/run_1',
    actionLabel: 'Open the run',
  });

  it('offers Fetch the work again, which asks once however fast the clicks, and says why when it fails again', async () => {
    const answer = deferred<ChannelOutput<'fetchRunWorkAgain'>>();
    let calls = 0;
    const client = fakeOperatorClient({
      fetchRunWorkAgain: () => {
        calls += 1;
        if (calls === 1) return answer.promise;
        throw new OperatorError({ code: 'ssh_failed', reason: 'unreachable', message: 'ssh could not reach build-box. Check that the host is up, then test again.' });
      },
    });
    const { user } = renderInConsole(<NoticeCard notice={leftOnHost} />, { client, route: '/notices' });
    const card = screen.getByRole('article', { name: 'Run’s work left on its host' });
    const fetchAgain = within(card).getByRole('button', { name: 'Fetch the work again', description: 'Run’s work left on its host' });
    await user.dblClick(fetchAgain);
    expect(client.inputsOf('fetchRunWorkAgain')).toEqual([{ runId: 'run_1' }]);
    expect(within(card).getByText('Fetching the run’s work from its host…')).toBeTruthy();
    act(() => answer.resolve({ run: aRunSummary({ id: 'run_1' }), alreadyBack: false }));
    expect(await within(card).findByText(/The run’s work is back\./)).toBeTruthy();

    await user.click(fetchAgain);
    expect(await within(card).findByText(/ssh could not reach build-box/)).toBeTruthy();
  });

  it('offers nothing to fetch once resolved', () => {
    renderInConsole(<NoticeCard notice={{ ...leftOnHost, status: 'resolved', resolvedAt: '2026-03-02T10:00:00.000Z' }} />, { client: fakeOperatorClient(), route: '/notices' });
    expect(screen.queryByRole('button', { name: 'Fetch the work again' })).toBeNull();
  });
});
