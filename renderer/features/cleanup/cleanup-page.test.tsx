import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aCleanupCandidate } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { CleanupPage } from './cleanup-page';

const landed = aCleanupCandidate({ runId: 'run_1', agentName: 'Codex writer' });
const discarded = aCleanupCandidate({ runId: 'run_2', agentName: 'Claude writer', landingState: 'discarded', holdings: { uncommittedFiles: [], unlandedCommits: [], diskBytes: 800_000 } });
const unlanded = aCleanupCandidate({
  runId: 'run_3',
  agentName: 'Gemini writer',
  status: 'failed',
  landingState: 'not_landed',
  freelyRemovable: false,
  resumable: true,
  holdings: { uncommittedFiles: ['src/refund.ts', 'src/refund.test.ts'], unlandedCommits: [{ sha: 'abc1234def', subject: 'Half a refund' }], diskBytes: 2_000_000 },
});

function showCleanup(answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    planCleanup: () => ({ candidates: [landed, discarded, unlanded] }),
    getCleanupPolicy: () => ({ removeSettledAfterDays: null }),
    ...answers,
  });
  return { ...renderInConsole(<CleanupPage />, { client, route: '/cleanup' }), client };
}

const box = (name: string) => screen.getByRole<HTMLInputElement>('checkbox', { name });

describe('Clean up', () => {
  it('lists what each run holds; landed and discarded runs are ticked, the unlanded one is not', async () => {
    showCleanup();
    const table = await screen.findByRole('table', { name: 'Finished runs whose files could be removed' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('td, th')].slice(1).map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Write the refund module · Codex writer', 'Succeeded', 'Landed', '1.2 MB', '—', '—', 'No'],
      ['Write the refund module · Claude writer', 'Succeeded', 'Discarded', '800 kB', '—', '—', 'No'],
      ['Write the refund module · Gemini writer', 'Failed', 'Not landed', '2 MB', '2', '1', 'Yes'],
    ]);
    expect(box('Remove “Write the refund module · Codex writer”').checked).toBe(true);
    expect(box('Remove “Write the refund module · Claude writer”').checked).toBe(true);
    expect(box('Remove the unlanded work of “Write the refund module · Gemini writer”').checked).toBe(false);
    expect(screen.getByRole('button', { name: 'Remove the files of 2 runs' })).toBeTruthy();
  });

  it('removes only the ticked runs, sends the unlanded one ticked by name as confirmed, and shows what was removed and kept', async () => {
    const { user, client } = showCleanup({
      cleanUpRuns: () => ({ removed: ['run_1', 'run_3'], kept: [{ runId: 'run_2', reason: 'its files are in use' }], freedBytes: 3_200_000 }),
    });
    await screen.findByRole('table', { name: 'Finished runs whose files could be removed' });
    await user.click(box('Remove the unlanded work of “Write the refund module · Gemini writer”'));
    await user.click(screen.getByRole('button', { name: 'Remove the files of 3 runs' }));

    const dialog = screen.getByRole('alertdialog', { name: 'Remove the files of 3 runs?' });
    const named = within(dialog).getByRole('list', { name: 'Unlanded work to remove' });
    expect(within(named).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Write the refund module · Gemini writer']);
    client.answer({ planCleanup: () => ({ candidates: [discarded] }) });
    await user.click(within(dialog).getByRole('button', { name: 'Remove files' }));

    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(client.inputsOf('cleanUpRuns')).toEqual([{ runIds: ['run_1', 'run_2', 'run_3'], confirmedRunIds: ['run_3'] }]);
    expect(screen.getByText('Removed the files of 2 runs, freeing 3.2 MB. Their history stays.')).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Runs kept' })).getByRole('listitem').textContent).toBe(
      'Kept “Write the refund module · Claude writer”: its files are in use',
    );
  });

  it('unticking leaves a run out; without the confirmation the unlanded run is never sent', async () => {
    const { user, client } = showCleanup({ cleanUpRuns: () => ({ removed: ['run_2'], kept: [], freedBytes: 800_000 }) });
    await screen.findByRole('table', { name: 'Finished runs whose files could be removed' });
    await user.click(box('Remove “Write the refund module · Codex writer”'));
    await user.click(screen.getByRole('button', { name: 'Remove the files of 1 run' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Remove the files of 1 run?' });
    expect(within(dialog).queryByRole('list', { name: 'Unlanded work to remove' })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Remove files' }));
    await vi.waitFor(() => expect(client.inputsOf('cleanUpRuns')).toEqual([{ runIds: ['run_2'] }]));
  });

  it('the policy removes settled runs’ files after the days given, and is saved', async () => {
    const { user, client } = showCleanup({ setCleanupPolicy: (policy) => policy });
    const form = await screen.findByRole('form', { name: 'Clean-up policy' });
    const days = within(form).getByRole('spinbutton', { name: 'Days after landing or discarding' });
    expect(days).toHaveProperty('disabled', true);
    await user.click(within(form).getByRole('checkbox', { name: 'Remove the files of landed and discarded runs after' }));
    await user.clear(days);
    await user.type(days, '0');
    await user.click(within(form).getByRole('button', { name: 'Save policy' }));
    expect(within(form).getByText('Say after how many days: a whole number from 1 to 3650.')).toBeTruthy();
    expect(client.inputsOf('setCleanupPolicy')).toEqual([]);

    await user.clear(days);
    await user.type(days, '30');
    await user.click(within(form).getByRole('button', { name: 'Save policy' }));
    expect(await within(form).findByText('Saved: after 30 days.')).toBeTruthy();
    expect(client.inputsOf('setCleanupPolicy')).toEqual([{ removeSettledAfterDays: 30 }]);
  });
});
