import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelParsedInput } from '../../../shared/contract';
import { OperatorError } from '../../../shared/errors';
import { aCleanLandingPlan, aRunComparison, aRunDiff, landedIn } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { ComparePage } from './compare-page';

const runs = [
  aRunComparison({ runId: 'run_1', agentId: 'agent_1', agentName: 'Codex writer' }),
  aRunComparison({
    runId: 'run_2',
    agentId: 'agent_2',
    agentName: 'Claude writer',
    durationMs: 95_000,
    attempts: 2,
    tokens: null,
    filesChanged: 1,
    linesAdded: 12,
    linesRemoved: 0,
  }),
  aRunComparison({
    runId: 'run_3',
    agentId: 'agent_3',
    agentName: 'Gemini writer',
    status: 'failed',
    tokens: null,
    filesChanged: null,
    linesAdded: null,
    linesRemoved: null,
    changesNote: 'The run’s files were removed.',
    landing: landedIn('release'),
  }),
];

/** A diff adding one file, as the core answers getRunDiff. */
function addedFile(path: string, line: string) {
  return aRunDiff({
    files: [{ path, status: 'added', additions: 1, deletions: 0 }],
    unifiedDiff: [`diff --git a/${path} b/${path}`, 'new file mode 100644', '--- /dev/null', `+++ b/${path}`, '@@ -0,0 +1 @@', `+${line}`, ''].join('\n'),
  });
}

const diffs: Record<string, ReturnType<typeof aRunDiff>> = {
  run_1: addedFile('src/refund.ts', 'export const refund = 1;'),
  run_2: addedFile('src/refunds.ts', 'export const refunds = 2;'),
};

function showCompare(answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    compareTaskRuns: () => ({ taskId: 'task_1', taskTitle: 'Write the refund module', runs }),
    getRunDiff: ({ runId }) => {
      const diff = diffs[runId];
      if (!diff) throw new OperatorError({ code: 'not_found', message: 'This run’s files were cleaned up.' });
      return diff;
    },
    ...answers,
  });
  return { ...renderInConsole(<ComparePage taskId="task_1" />, { client, route: '/tasks/task_1/compare' }), client };
}

const rowTexts = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => [...row.querySelectorAll('td, th')].map((cell) => cell.textContent));

describe('Compare: a task’s runs side by side', () => {
  it('shows each run’s status, duration, attempts, tokens, files and lines changed and landing', async () => {
    showCompare();
    expect(await screen.findByText('Write the refund module', { selector: '.page__subtitle' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Compare runs' })).toBeTruthy();
    const table = screen.getByRole('table', { name: 'Runs of Write the refund module, side by side' });
    expect(rowTexts(table)).toEqual([
      ['', 'Codex writer', 'Succeeded', '2m 00s', '1', '48,200', '2', '40 lines added, 3 removed+40 −3', 'Not landed', 'Land this one'],
      ['', 'Claude writer', 'Succeeded', '1m 35s', '2', '—', '1', '12 lines added, 0 removed+12 −0', 'Not landed', 'Land this one'],
      ['', 'Gemini writer', 'Failed', '2m 00s', '1', '—', '—', '—', 'Landed → release', ''],
    ]);
    expect(within(table).getByRole('link', { name: 'Claude writer' }).getAttribute('href')).toBe('#/runs/run_2');
    // A landed run is not offered again.
    expect(within(table).queryByRole('button', { name: 'Land Gemini writer' })).toBeNull();
  });

  it('two picked runs show their diffs next to each other; a third pick lets go of the first', async () => {
    const { user, client } = showCompare();
    const left = await screen.findByRole('region', { name: 'Changes of Codex writer' });
    const right = screen.getByRole('region', { name: 'Changes of Claude writer' });
    expect(await within(left).findByText('export const refund = 1;')).toBeTruthy();
    expect(await within(right).findByText('export const refunds = 2;')).toBeTruthy();
    expect(within(left).queryByText('export const refunds = 2;')).toBeNull();
    expect(left.parentElement).toBe(right.parentElement);

    expect(screen.getByRole('checkbox', { name: 'Compare Codex writer' })).toHaveProperty('checked', true);
    await user.click(screen.getByRole('checkbox', { name: 'Compare Gemini writer' }));
    expect(screen.getByRole('checkbox', { name: 'Compare Codex writer' })).toHaveProperty('checked', false);
    expect(screen.queryByRole('region', { name: 'Changes of Codex writer' })).toBeNull();
    const gemini = screen.getByRole('region', { name: 'Changes of Gemini writer' });
    expect(await within(gemini).findByText('This run’s files were cleaned up.')).toBeTruthy();
    expect(client.inputsOf('getRunDiff').map((input) => input.runId).sort()).toEqual(['run_1', 'run_2', 'run_3']);

    await user.click(screen.getByRole('checkbox', { name: 'Compare Claude writer' }));
    expect(screen.getByText('Tick two runs above to see their changes next to each other.')).toBeTruthy();
  });

  it('Land this one lands the run by the strategy chosen and discards the other runs ticked, in one request', async () => {
    const landed: ChannelParsedInput<'landRun'>[] = [];
    const { user, client } = showCompare({
      getLandingPlan: ({ runId }) => aCleanLandingPlan({ runId }),
      landRun: (input) => {
        landed.push(input);
        return { landing: landedIn('main'), workingCopyUpdated: true, discarded: input.discardRunIds ?? [] };
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Land Codex writer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Land Codex writer’s run' });
    expect(await within(dialog).findByText(/land cleanly in/)).toBeTruthy();
    expect(within(dialog).getByRole('radio', { name: 'Fast-forward' })).toHaveProperty('checked', true);
    // The other run not landed is ticked to go; the landed one is not.
    expect(within(dialog).getByRole('checkbox', { name: 'Discard Claude writer' })).toHaveProperty('checked', true);
    expect(within(dialog).getByRole('checkbox', { name: 'Discard Gemini writer' })).toHaveProperty('checked', false);

    await user.click(within(dialog).getByRole('radio', { name: 'Squash' }));
    const message = within(dialog).getByRole('textbox', { name: 'Squash commit message' });
    expect(message).toHaveProperty('value', 'Write the refund module');
    await user.clear(message);
    await user.type(message, 'Refunds, by Codex');
    await user.click(within(dialog).getByRole('button', { name: 'Land and discard 1 other' }));

    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(landed).toEqual([{ runId: 'run_1', target: 'main', strategy: 'squash', message: 'Refunds, by Codex', discardRunIds: ['run_2'] }]);
    expect(screen.getByText('Landed Codex writer’s run in main (squash). Your working copy was updated. Discarded 1 other run.')).toBeTruthy();
    // The dry run was asked for the run's own base branch (no target named).
    expect(client.inputsOf('getLandingPlan')[0]).toEqual({ runId: 'run_1' });
  });

  it('a double click on Land sends one landing: the second click is ignored while the first is on its way', async () => {
    let answer!: () => void;
    const { user, client } = showCompare({
      getLandingPlan: ({ runId }) => aCleanLandingPlan({ runId }),
      landRun: (input) =>
        new Promise((resolve) => {
          answer = () => resolve({ landing: landedIn('main'), workingCopyUpdated: true, discarded: input.discardRunIds ?? [] });
        }),
    });
    await user.click(await screen.findByRole('button', { name: 'Land Codex writer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Land Codex writer’s run' });
    await within(dialog).findByText(/land cleanly in/);
    const land = screen.getByRole('button', { name: 'Land and discard 1 other' });
    // Two clicks in the same moment, before the console has drawn anything in between.
    fireEvent.click(land);
    fireEvent.click(land);
    await user.dblClick(land);
    expect(await within(dialog).findByText('Landing…')).toBeTruthy();
    expect(land.getAttribute('aria-disabled')).toBe('true');
    answer();
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(client.inputsOf('landRun')).toHaveLength(1);
  });

  it('Land this one on a run that left uncommitted files commits them first with the editable message, asks the dry run again, then lands', async () => {
    let committed = false;
    const { user, client } = showCompare({
      getLandingPlan: ({ runId }) =>
        committed
          ? aCleanLandingPlan({ runId, touchedFiles: ['notes/plan.md'] })
          : aCleanLandingPlan({
              runId,
              holdings: { uncommittedFiles: ['notes/plan.md', 'notes/todo.md'], unlandedCommits: [], diskBytes: 1_000 },
              touchedFiles: [],
              commitMessage: 'Write the refund module\n\nThe plan, in notes.',
            }),
      commitRunChanges: () => {
        committed = true;
        return { commit: 'f00dfeed1234567', files: ['notes/plan.md', 'notes/todo.md'] };
      },
      landRun: (input) => ({ landing: landedIn('main'), workingCopyUpdated: false, discarded: input.discardRunIds ?? [] }),
    });
    await user.click(await screen.findByRole('button', { name: 'Land Codex writer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Land Codex writer’s run' });
    expect(await within(dialog).findByText(/2 uncommitted files will be committed first/)).toBeTruthy();
    const commitMessage = within(dialog).getByRole('textbox', { name: 'Commit message' });
    expect(commitMessage).toHaveProperty('value', 'Write the refund module\n\nThe plan, in notes.');
    await user.clear(commitMessage);
    await user.type(commitMessage, 'The plan, by Codex');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Discard Claude writer' }));
    await user.click(within(dialog).getByRole('button', { name: 'Land' }));

    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const order = client.calls.map((call) => call.channel).filter((channel) => ['commitRunChanges', 'getLandingPlan', 'landRun'].includes(channel));
    // Committed first, the dry run asked again after the commit, and only then landed (the refreshes
    // that follow a commit or a landing may ask the dry run more often).
    const committedAt = order.indexOf('commitRunChanges');
    const landedAt = order.indexOf('landRun');
    expect(committedAt).toBeGreaterThan(order.indexOf('getLandingPlan'));
    expect(landedAt).toBeGreaterThan(committedAt);
    expect(order.slice(committedAt + 1, landedAt)).toContain('getLandingPlan');
    expect(client.inputsOf('commitRunChanges')).toEqual([{ runId: 'run_1', message: 'The plan, by Codex' }]);
    expect(client.inputsOf('landRun')).toEqual([{ runId: 'run_1', target: 'main', strategy: 'fast-forward' }]);
  });

  it('a commit the core refuses is shown in the dialog and nothing lands; a dry run after the commit that finds conflicts stops before landing', async () => {
    let committed = false;
    let refuse = true;
    const { user, client } = showCompare({
      getLandingPlan: ({ runId }) =>
        committed
          ? aCleanLandingPlan({ runId, clean: false, fastForward: false, conflicts: ['notes/plan.md'] })
          : aCleanLandingPlan({ runId, holdings: { uncommittedFiles: ['notes/plan.md'], unlandedCommits: [], diskBytes: 1_000 }, touchedFiles: [] }),
      commitRunChanges: () => {
        if (refuse) throw new OperatorError({ code: 'conflict', message: 'The run’s store is locked by git.' });
        committed = true;
        return { commit: 'f00dfeed1234567', files: ['notes/plan.md'] };
      },
      landRun: () => {
        throw new Error('landRun must not be sent');
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Land Codex writer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Land Codex writer’s run' });
    await within(dialog).findByText(/1 uncommitted file will be committed first/);
    await user.click(within(dialog).getByRole('button', { name: 'Land and discard 1 other' }));
    expect(await within(dialog).findByText(/The run’s store is locked by git\./)).toBeTruthy();
    expect(within(dialog).getByText(/Could not commit the changes\./)).toBeTruthy();

    refuse = false;
    await user.click(within(dialog).getByRole('button', { name: 'Land and discard 1 other' }));
    expect(await within(dialog).findByText(/Landing stopped: The run conflicts with main\./)).toBeTruthy();
    expect(within(within(dialog).getByRole('list', { name: 'Conflicting files' })).getByText('notes/plan.md')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Land and discard 1 other' }).getAttribute('aria-disabled')).toBe('true');
    expect(client.inputsOf('commitRunChanges')).toHaveLength(2);
    expect(client.inputsOf('landRun')).toEqual([]);
  });

  it('a dry run that finds conflicts names the files and lands nothing; another target is tried with its own dry run', async () => {
    const { user, client } = showCompare({
      getLandingPlan: ({ runId, target }) =>
        target === 'release'
          ? aCleanLandingPlan({ runId, target: 'release', fastForward: false })
          : aCleanLandingPlan({ runId, clean: false, fastForward: false, conflicts: ['src/refund.ts'] }),
      landRun: () => {
        throw new Error('landRun must not be sent');
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Land Claude writer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Land Claude writer’s run' });
    const conflicts = await within(dialog).findByRole('list', { name: 'Conflicting files' });
    expect(within(conflicts).getByText('src/refund.ts')).toBeTruthy();
    expect(within(dialog).getByRole('radio', { name: 'Fast-forward' })).toHaveProperty('disabled', true);
    const land = screen.getByRole('button', { name: 'Land and discard 1 other' });
    expect(land.getAttribute('aria-disabled')).toBe('true');
    await user.click(land);
    expect(client.inputsOf('landRun')).toEqual([]);

    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Target branch' }), 'release');
    expect(await within(dialog).findByText(/land cleanly in/)).toBeTruthy();
    expect(client.inputsOf('getLandingPlan')).toEqual([{ runId: 'run_2' }, { runId: 'run_2', target: 'release' }]);
    expect(within(dialog).getByRole('radio', { name: 'Merge commit' })).toHaveProperty('checked', true);
    expect(screen.getByRole('button', { name: 'Land and discard 1 other' }).getAttribute('aria-disabled')).toBeNull();
  });
});
