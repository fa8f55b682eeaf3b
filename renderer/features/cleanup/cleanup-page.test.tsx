import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aCleanupCandidate, aDiskUsage, aLedgerSpace } from '../../testing/contract-fixtures';
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
    getDiskUsage: () => aDiskUsage(),
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
      cleanUpRuns: () => ({
        removed: ['run_1', 'run_3'],
        kept: [{ runId: 'run_2', reason: 'its files are in use' }],
        freedBytes: 3_200_000,
        gitStores: [{ host: 'build-box', removed: 1, freedBytes: 1_000_000, error: null }],
      }),
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
    expect(within(screen.getByRole('list', { name: 'Git stores on SSH hosts' })).getByRole('listitem').textContent).toBe(
      'Removed 1 project git store on build-box that no run there needs any more (1 MB).',
    );
  });

  it('unticking leaves a run out; without the confirmation the unlanded run is never sent', async () => {
    const { user, client } = showCleanup({ cleanUpRuns: () => ({ removed: ['run_2'], kept: [], freedBytes: 800_000, gitStores: [] }) });
    await screen.findByRole('table', { name: 'Finished runs whose files could be removed' });
    await user.click(box('Remove “Write the refund module · Codex writer”'));
    await user.click(screen.getByRole('button', { name: 'Remove the files of 1 run' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Remove the files of 1 run?' });
    expect(within(dialog).queryByRole('list', { name: 'Unlanded work to remove' })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Remove files' }));
    await vi.waitFor(() => expect(client.inputsOf('cleanUpRuns')).toEqual([{ runIds: ['run_2'] }]));
  });

  it('shows what the ledger takes on the disk and that deleting a run gives its room back', async () => {
    showCleanup({ getDiskUsage: () => aDiskUsage({ ledger: aLedgerSpace({ fileBytes: 1_800_000_000, walBytes: 4_000_000 }) }) });
    const section = await screen.findByRole('region', { name: 'The ledger' });
    await vi.waitFor(() => expect(section.textContent).toContain('takes 1.8 GB on the disk (its write-ahead log 4 MB of it)'));
    expect(section.textContent).toContain('Deleting a run gives the room its output took back to the disk at once.');
    expect(within(section).getByText('Nothing in it is waiting to go back to the disk.')).toBeTruthy();
    expect(within(section).queryByRole('button')).toBeNull();
  });

  it('gives the free space deleted runs left back to the disk, following it while it works', async () => {
    let left = 300_000_000;
    let finish: () => void = () => undefined;
    const { user, client } = showCleanup({
      getDiskUsage: () => aDiskUsage({ ledger: aLedgerSpace({ fileBytes: 1_000_000_000 + left, reclaimableBytes: left, reclaiming: left < 300_000_000 && left > 0 }) }),
      reclaimLedgerSpace: () =>
        new Promise((resolve) => {
          finish = () => resolve({ reclaimedBytes: 300_000_000, ledger: aLedgerSpace({ fileBytes: 1_000_000_000 }) });
        }),
    });
    const section = await screen.findByRole('region', { name: 'The ledger' });
    expect(await within(section).findByText('300 MB of it is free space deleted runs left.')).toBeTruthy();
    await user.click(within(section).getByRole('button', { name: 'Give 300 MB back to the disk' }));
    expect(client.inputsOf('reclaimLedgerSpace')).toHaveLength(1);
    // While it works, the figures are read again and again: what is left goes down.
    left = 120_000_000;
    expect(await within(section).findByText('Giving space back to the disk… 120 MB left.', {}, { timeout: 3000 })).toBeTruthy();
    // A second press does nothing while it works.
    await user.click(within(section).getByRole('button', { name: 'Give 120 MB back to the disk' }));
    expect(client.inputsOf('reclaimLedgerSpace')).toHaveLength(1);
    left = 0;
    finish();
    expect(await within(section).findByText('Gave 300 MB back to the disk; the ledger now takes 1 GB.')).toBeTruthy();
    await vi.waitFor(() => expect(within(section).queryByRole('button')).toBeNull());
  });

  it('says why an earlier console’s ledger keeps the room deleted runs leave, and offers nothing it cannot do', async () => {
    showCleanup({ getDiskUsage: () => aDiskUsage({ ledger: aLedgerSpace({ mode: 'not_converted', reclaimableBytes: 50_000_000 }) }) });
    const section = await screen.findByRole('region', { name: 'The ledger' });
    await vi.waitFor(() => expect(section.textContent).toContain('It was made by an earlier console'));
    expect(section.textContent).toContain('which it does at a start when the disk has about the ledger’s size free');
    expect(within(section).queryByRole('button')).toBeNull();
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
