import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { RunDetail } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { aLandingPlan, aRun, aRunDiff } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { RunChanges } from './run-changes';

const refundDiff = aRunDiff({
  files: [{ path: 'src/refund.ts', status: 'added', additions: 2, deletions: 0 }],
  unifiedDiff: [
    'diff --git a/src/refund.ts b/src/refund.ts',
    'new file mode 100644',
    'index 0000000..3e75765',
    '--- /dev/null',
    '+++ b/src/refund.ts',
    '@@ -0,0 +1,2 @@',
    '+export const refund = (amount: number) => -amount;',
    '+// written by fixture-agent',
    '',
  ].join('\n'),
});

const viewPath = '/data/tasks/run_1/view';

function showChanges(run: RunDetail, answers: ChannelAnswers) {
  // An ended run's landing bar reads its landing plan as the changes load.
  const client = fakeOperatorClient({ getLandingPlan: () => aLandingPlan(), ...answers });
  const rendered = renderInConsole(<RunChanges run={run} />, { client, route: `/runs/${run.id}` });
  return { ...rendered, client, panel: screen.getByRole('region', { name: 'Changes' }) };
}

describe('a run’s Changes', () => {
  it('lists what the agent changed against the base revision, and shows the new file’s lines', async () => {
    const { panel } = showChanges(aRun(), { getRunDiff: () => refundDiff });
    const files = await within(panel).findByRole('list', { name: 'Files changed' });
    expect(within(panel).getByText(/^1 file changed against base revision/).textContent).toBe(
      '1 file changed against base revision 0123456789ab 2 lines added, 0 removed+2 −0',
    );
    const [item] = within(files).getAllByRole('listitem');
    expect(item!.textContent).toBe('Addedsrc/refund.ts2 lines added, 0 removed+2 −0');
    expect(within(panel).getByText('export const refund = (amount: number) => -amount;')).toBeTruthy();
    expect(within(panel).getByText('// written by fixture-agent')).toBeTruthy();
  });

  it('Open folder shows the run’s folder with the path to copy', async () => {
    const { user, panel, client } = showChanges(aRun(), { getRunDiff: () => refundDiff, openRunFolder: () => ({ path: viewPath, opened: false }) });
    await within(panel).findByRole('list', { name: 'Files changed' });
    expect(within(panel).queryByText(viewPath)).toBeNull();

    await user.click(within(panel).getByRole('button', { name: 'Open folder' }));
    expect(await within(panel).findByText(viewPath)).toBeTruthy();
    const status = within(panel).getByRole('status');
    expect(status.textContent).toBe('The console could not open a file manager on this machine. Copy the path and open it yourself.');
    await user.click(within(panel).getByRole('button', { name: 'Copy path' }));
    expect(await navigator.clipboard.readText()).toBe(viewPath);
    expect(status.textContent).toMatch(/ Copied\.$/);
    expect(client.inputsOf('openRunFolder')).toEqual([{ runId: 'run_1' }]);
  });

  it('a run still on its way says its changes come once its folder is ready; an ended one without a folder says why', async () => {
    const noFolder = () => {
      throw new OperatorError({ code: 'not_found', message: 'This run’s working folder was cleaned up when it was archived.' });
    };
    const preparing = showChanges(aRun({ status: 'preparing', cwd: null, endedAt: null }), { getRunDiff: noFolder });
    expect(await within(preparing.panel).findByText('Changes appear here once the run’s working folder is ready.')).toBeTruthy();
    expect(within(preparing.panel).getByRole('button', { name: 'Refresh changes' })).toBeTruthy();
    expect(within(preparing.panel).queryByRole('button', { name: 'Open folder' })).toBeNull();
    preparing.unmount();

    const archived = showChanges(aRun({ archived: true }), { getRunDiff: noFolder });
    expect(await within(archived.panel).findByText('This run’s working folder was cleaned up when it was archived.')).toBeTruthy();
    expect(within(archived.panel).queryByRole('button')).toBeNull();
  });

  it('Refresh changes reads the changes again', async () => {
    const { user, panel, client } = showChanges(aRun(), { getRunDiff: () => aRunDiff() });
    expect(await within(panel).findByText(/^No files changed against base revision/)).toBeTruthy();

    client.answer({ getRunDiff: () => refundDiff });
    await user.click(within(panel).getByRole('button', { name: 'Refresh changes' }));
    expect(await within(panel).findByRole('list', { name: 'Files changed' })).toBeTruthy();
    expect(client.inputsOf('getRunDiff')).toHaveLength(2);
  });

  it('warns of hidden characters in what the agent wrote, shows each as a badge, and takes the operator to the line', async () => {
    const diff = aRunDiff({
      files: [{ path: 'src/admin.ts', status: 'added', additions: 2, deletions: 0 }],
      unifiedDiff: [
        'diff --git a/src/admin.ts b/src/admin.ts',
        'new file mode 100644',
        'index 0000000..3e75765',
        '--- /dev/null',
        '+++ b/src/admin.ts',
        '@@ -0,0 +1,2 @@',
        '+const ok = true;',
        '+/*\u202e } if (isAdmin) begin admins only */',
        '',
      ].join('\n'),
    });
    const { user, panel } = showChanges(aRun(), { getRunDiff: () => diff });
    const warning = await within(panel).findByRole('alert', { name: 'Hidden characters in the agent’s changes' });
    expect(within(warning).getByText(/^1 line in 1 file holds hidden characters\./)).toBeTruthy();
    const badges = within(panel).getAllByRole('img').filter((badge) => badge.closest('.diff-lines'));
    expect(badges).toHaveLength(1);
    expect(badges[0]!.getAttribute('aria-label')).toMatch(/U\+202E/);

    await user.click(within(within(warning).getByRole('list', { name: 'Files with hidden characters' })).getByRole('button', { name: 'src/admin.ts' }));
    await vi.waitFor(() => expect(document.activeElement?.textContent).toContain('Line 2 holds hidden characters: '));
  });
});
