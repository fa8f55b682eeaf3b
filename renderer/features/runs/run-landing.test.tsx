import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { RunDetail } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { aLandingPlan, aRun, aRunDiff, aRunLanding } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { RunChanges } from './run-changes';

const refundDiff = aRunDiff({
  files: [
    { path: 'src/refund.ts', status: 'added', additions: 12, deletions: 0 },
    { path: 'src/money.ts', status: 'modified', additions: 3, deletions: 1 },
    { path: 'assets/logo.png', status: 'added', additions: null, deletions: null },
  ],
});

function showChanges(answers: ChannelAnswers, { run = aRun(), ...options }: { run?: RunDetail; landRequest?: { target?: string }; focused?: boolean; route?: string } = {}) {
  const client = fakeOperatorClient({ getRunDiff: () => refundDiff, getLandingPlan: () => aLandingPlan(), ...answers });
  const rendered = renderInConsole(<RunChanges run={run} landRequest={options.landRequest} focused={options.focused ?? false} />, {
    client,
    route: options.route ?? `/runs/${run.id}`,
  });
  return { ...rendered, client, panel: screen.getByRole('region', { name: 'Changes' }) };
}

/** What a control's aria-describedby says, as a screen reader reads it after its name. */
function description(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

async function openLandDialog(user: ReturnType<typeof showChanges>['user'], panel: HTMLElement) {
  await user.click(await within(panel).findByRole('button', { name: 'Land…' }));
  return screen.getByRole('dialog', { name: 'Land the run’s work' });
}

describe('landing a run from its Changes', () => {
  it('shows each file’s lines added and removed, binary files as binary, and what the run holds', async () => {
    const { panel } = showChanges({});
    const files = await within(panel).findByRole('list', { name: 'Files changed' });
    expect(within(files).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Addedsrc/refund.ts12 lines added, 0 removed+12 −0',
      'Modifiedsrc/money.ts3 lines added, 1 removed+3 −1',
      'Addedassets/logo.pngbinary',
    ]);
    const holdings = await within(panel).findByRole('list', { name: 'What the run holds' });
    expect(within(holdings).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['0 uncommitted files', '2 commits not landed']);
    expect(within(panel).getByText('Not landed')).toBeTruthy();
    expect(within(panel).getByText('The project has no remote to push to.')).toBeTruthy();
  });

  it('Commit… proposes the plan’s message, sends the operator’s edit, and says what it committed', async () => {
    const dirty = aLandingPlan({ holdings: { uncommittedFiles: ['src/refund.ts', 'notes.md'], unlandedCommits: [], diskBytes: null } });
    const { user, panel, client } = showChanges({
      getLandingPlan: () => dirty,
      commitRunChanges: () => ({ commit: 'd4e5f60718293a4b5c6d7e8f9012345678901a2b', files: ['src/refund.ts', 'notes.md'] }),
    });
    // Landing takes commits only: Land… says to commit first.
    const land = await within(panel).findByRole('button', { name: 'Land…' });
    expect(land.getAttribute('aria-disabled')).toBe('true');
    expect(description(land)).toBe('Commit the run’s 2 uncommitted files first: landing takes the run’s commits only.');
    await user.click(land);
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(within(panel).getByRole('button', { name: 'Commit…' }));
    const dialog = screen.getByRole('dialog', { name: 'Commit the run’s changes' });
    expect(within(dialog).getByText(/^Commits 2 uncommitted files \(src\/refund\.ts, notes\.md\) on the run’s branch/)).toBeTruthy();
    const message = within(dialog).getByRole<HTMLTextAreaElement>('textbox', { name: 'Commit message' });
    expect(message.value).toBe('Write the refund module\n\nAdded src/refund.ts with its tests.');
    expect(document.activeElement).toBe(message);

    await user.clear(message);
    await user.click(within(dialog).getByRole('button', { name: 'Commit' }));
    expect(within(dialog).getByText('A commit needs a message.')).toBeTruthy();
    expect(client.inputsOf('commitRunChanges')).toEqual([]);

    await user.type(message, 'Refunds, reviewed');
    await user.click(within(dialog).getByRole('button', { name: 'Commit' }));
    expect(await within(panel).findByText('Committed 2 files as d4e5f60.')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(client.inputsOf('commitRunChanges')).toEqual([{ runId: 'run_1', message: 'Refunds, reviewed' }]);
    // What the run holds is read again once it committed.
    await vi.waitFor(() => expect(client.inputsOf('getLandingPlan')).toHaveLength(2));
  });

  it('Land… starts at the run’s base branch, offers no fast-forward when the branch moved on, and asks again for another branch', async () => {
    const moved = aLandingPlan({ fastForward: false, baseBranch: 'release', target: 'release' });
    const { user, panel, client } = showChanges({
      getLandingPlan: ({ target }) => (target === 'main' ? aLandingPlan({ target: 'main', fastForward: true }) : moved),
    });
    const dialog = await openLandDialog(user, panel);
    const target = within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Target branch' });
    expect(target.value).toBe('release');
    expect([...target.options].map((option) => option.value)).toEqual(['main', 'release', 'feature/refunds']);

    const fastForward = within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Fast-forward' });
    expect(fastForward.disabled).toBe(true);
    expect(description(fastForward)).toBe('Not possible: release has commits the run does not have.');
    expect(within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Merge commit' }).checked).toBe(true);
    expect(within(dialog).getByRole<HTMLTextAreaElement>('textbox', { name: 'Merge commit message' }).value).toBe(moved.landMessage);
    expect(within(dialog).getByText('Lands cleanly in release: 2 files change. release is not checked out, so only the branch moves.')).toBeTruthy();
    // The bar's dry run is release's too: the dialog shares it, and reads it again as it opens.
    await vi.waitFor(() => expect(client.inputsOf('getLandingPlan')).toEqual([{ runId: 'run_1' }, { runId: 'run_1' }]));

    await user.selectOptions(target, 'main');
    expect(await within(dialog).findByText('Lands cleanly in main: 2 files change. main is not checked out, so only the branch moves.')).toBeTruthy();
    expect(client.inputsOf('getLandingPlan').at(-1)).toEqual({ runId: 'run_1', target: 'main' });
    expect(within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Fast-forward' }).disabled).toBe(false);
  });

  it('a conflict is shown before landing: Land is refused, and the agent can be asked to resolve it', async () => {
    const conflicted = aLandingPlan({ clean: false, fastForward: false, conflicts: ['src/refund.ts', 'src/money.ts'] });
    const { user, panel, client } = showChanges(
      { getLandingPlan: () => conflicted, resolveRunConflicts: () => aRun({ status: 'running', canStop: true, endedAt: null }) },
      { route: '/runs/run_1/changes' },
    );
    const conflicts = await within(panel).findByRole('region', { name: 'Run conflicts with main' });
    expect(within(within(conflicts).getByRole('list', { name: 'Conflicting files' })).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'src/refund.ts',
      'src/money.ts',
    ]);

    const dialog = await openLandDialog(user, panel);
    expect(within(dialog).getByText('Conflicts with main in: src/refund.ts, src/money.ts.')).toBeTruthy();
    const land = within(dialog).getByRole('button', { name: 'Land' });
    expect(land.getAttribute('aria-disabled')).toBe('true');
    expect(description(land)).toBe('The run conflicts with main.');
    await user.click(land);
    expect(client.inputsOf('landRun')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await user.click(within(conflicts).getByRole('button', { name: 'Ask the agent to resolve' }));
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_1'));
    expect(client.inputsOf('resolveRunConflicts')).toEqual([{ runId: 'run_1', target: 'main' }]);
  });

  it('Open folder beside a conflict opens the run’s folder', async () => {
    const { user, panel, client } = showChanges({
      getLandingPlan: () => aLandingPlan({ clean: false, conflicts: ['src/refund.ts'] }),
      openRunFolder: () => ({ path: '/data/tasks/run_1/view', opened: true }),
    });
    const conflicts = await within(panel).findByRole('region', { name: 'Run conflicts with main' });
    await user.click(within(conflicts).getByRole('button', { name: 'Open folder' }));
    expect(await within(panel).findByText('/data/tasks/run_1/view')).toBeTruthy();
    expect(client.inputsOf('openRunFolder')).toEqual([{ runId: 'run_1' }]);
  });

  it('a checkout with uncommitted changes in the touched files is named, and Land is refused', async () => {
    const { user, panel, client } = showChanges({
      getLandingPlan: () => aLandingPlan({ checkout: { path: '/home/ada/shop', blockingFiles: ['src/money.ts'] } }),
    });
    const dialog = await openLandDialog(user, panel);
    expect(within(dialog).getByText('Blocked: /home/ada/shop has uncommitted changes in: src/money.ts. Commit or put them aside there first.')).toBeTruthy();
    const land = within(dialog).getByRole('button', { name: 'Land' });
    expect(land.getAttribute('aria-disabled')).toBe('true');
    await user.click(land);
    expect(client.inputsOf('landRun')).toEqual([]);
  });

  it('squash sends its edited message, and the dialog then says where it landed and that the working copy was updated', async () => {
    const checkedOut = aLandingPlan({ checkout: { path: '/home/ada/shop', blockingFiles: [] } });
    const { user, panel, client } = showChanges({
      getLandingPlan: () => checkedOut,
      landRun: () => ({ landing: aRunLanding(), workingCopyUpdated: true, discarded: [] }),
    });
    const dialog = await openLandDialog(user, panel);
    expect(within(dialog).getByText('Lands cleanly in main: 2 files change. main is checked out in /home/ada/shop, and its working copy is updated.')).toBeTruthy();
    expect(within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Fast-forward' }).checked).toBe(true);

    await user.click(within(dialog).getByRole('radio', { name: 'Squash' }));
    const message = within(dialog).getByRole<HTMLTextAreaElement>('textbox', { name: 'Squash commit message' });
    expect(message.value).toBe(checkedOut.landMessage);
    await user.clear(message);
    await user.type(message, 'Refunds');
    await user.click(within(dialog).getByRole('button', { name: 'Land' }));

    const landed = await screen.findByRole('dialog', { name: 'Landed' });
    expect(within(landed).getByRole('status').textContent).toBe('Landed in main as c3d4e5f (squash).The working copy in /home/ada/shop was updated.');
    expect(client.inputsOf('landRun')).toEqual([{ runId: 'run_1', target: 'main', strategy: 'squash', message: 'Refunds' }]);
    await user.click(within(landed).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('fast-forward sends no message; a branch not checked out says only the branch moved', async () => {
    const { user, panel, client } = showChanges({
      landRun: () => ({ landing: aRunLanding({ landed: { ...aRunLanding().landed!, strategy: 'fast-forward' } }), workingCopyUpdated: false, discarded: [] }),
    });
    const dialog = await openLandDialog(user, panel);
    expect(within(dialog).queryByRole('textbox')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Land' }));
    const landed = await screen.findByRole('dialog', { name: 'Landed' });
    expect(within(landed).getByText('The branch is not checked out there, so only the branch moved: no working copy was touched.')).toBeTruthy();
    expect(client.inputsOf('landRun')).toEqual([{ runId: 'run_1', target: 'main', strategy: 'fast-forward' }]);
  });

  it('a landing the core refuses says why inside the dialog, which stays open', async () => {
    const { user, panel } = showChanges({
      landRun: () => {
        throw new OperatorError({ code: 'conflict', message: 'main moved since the dry run: src/money.ts now conflicts.' });
      },
    });
    const dialog = await openLandDialog(user, panel);
    await user.click(within(dialog).getByRole('button', { name: 'Land' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Could not land the run. main moved since the dry run: src/money.ts now conflicts.');
    expect(screen.getByRole('dialog', { name: 'Land the run’s work' })).toBe(dialog);
  });

  it('the run-changes route opens the Land dialog at the branch it names, with focus on the Changes', async () => {
    const { panel, client } = showChanges(
      { getLandingPlan: ({ target }) => aLandingPlan(target ? { target } : {}) },
      { landRequest: { target: 'feature/refunds' }, focused: true, route: '/runs/run_1/changes?land=1&target=feature%2Frefunds' },
    );
    expect(document.activeElement).toBe(panel);
    const dialog = await screen.findByRole('dialog', { name: 'Land the run’s work' });
    expect(within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Target branch' }).value).toBe('feature/refunds');
    expect(await within(dialog).findByText(/^Lands cleanly in feature\/refunds/)).toBeTruthy();
    expect(client.inputsOf('getLandingPlan')).toEqual([{ runId: 'run_1' }, { runId: 'run_1', target: 'feature/refunds' }]);
  });

  it('Push branch pushes, then shows the forge’s compare address as a link', async () => {
    const withRemote = aLandingPlan({ remote: { name: 'origin', url: 'git@github.com:ada/shop.git' } });
    const pushed = aRunLanding({
      state: 'pushed',
      pushed: { remote: 'origin', branch: 'console/run_1', at: '2026-03-02T09:12:00.000Z', compareUrl: 'https://github.com/ada/shop/compare/main...console/run_1?expand=1', pullRequestUrl: null },
    });
    const { user, panel, client } = showChanges({ getLandingPlan: () => withRemote, pushRunBranch: () => pushed });
    await user.click(await within(panel).findByRole('button', { name: 'Push branch' }));
    const compare = await within(panel).findByRole('link', { name: 'Compare on the forge' });
    expect(compare.getAttribute('href')).toBe('https://github.com/ada/shop/compare/main...console/run_1?expand=1');
    expect(within(panel).getByText('Pushed', { selector: '.status-badge' })).toBeTruthy();
    await user.click(within(panel).getByRole('button', { name: 'Copy the address of compare on the forge' }));
    expect(await navigator.clipboard.readText()).toBe('https://github.com/ada/shop/compare/main...console/run_1?expand=1');
    expect(client.inputsOf('pushRunBranch')).toEqual([{ runId: 'run_1' }]);
  });

  it('without gh, Create pull request is refused and says what to install', async () => {
    const { user, panel, client } = showChanges({
      getLandingPlan: () => aLandingPlan({ remote: { name: 'origin', url: 'git@github.com:ada/shop.git' } }),
    });
    const create = await within(panel).findByRole('button', { name: 'Create pull request' });
    expect(create.getAttribute('aria-disabled')).toBe('true');
    expect(description(create)).toBe('Install the GitHub CLI (gh) and run gh auth login to create pull requests.');
    await user.click(create);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(client.inputsOf('createPullRequest')).toEqual([]);
  });

  it('with gh and the branch pushed, Create pull request sends a title and body, then links the pull request', async () => {
    const run = aRun({
      landing: aRunLanding({
        state: 'pushed',
        landed: null,
        pushed: { remote: 'origin', branch: 'console/run_1', at: '2026-03-02T09:12:00.000Z', compareUrl: null, pullRequestUrl: null },
      }),
    });
    const { user, panel, client } = showChanges(
      {
        getLandingPlan: () => aLandingPlan({ remote: { name: 'origin', url: 'git@github.com:ada/shop.git' }, pullRequests: { available: true, hint: null } }),
        createPullRequest: () => ({ url: 'https://github.com/ada/shop/pull/7' }),
      },
      { run },
    );
    await user.click(await within(panel).findByRole('button', { name: 'Create pull request' }));
    const dialog = screen.getByRole('dialog', { name: 'Create pull request' });
    expect(within(dialog).getByRole<HTMLInputElement>('textbox', { name: 'Title' }).value).toBe('Write the refund module');
    expect(within(dialog).getByRole<HTMLTextAreaElement>('textbox', { name: 'Description' }).value).toBe('Added src/refund.ts with its tests.');
    await user.click(within(dialog).getByRole('button', { name: 'Create pull request' }));
    const link = await within(panel).findByRole('link', { name: 'Pull request' });
    expect(link.getAttribute('href')).toBe('https://github.com/ada/shop/pull/7');
    expect(within(panel).queryByRole('button', { name: 'Create pull request' })).toBeNull();
    expect(client.inputsOf('createPullRequest')).toEqual([{ runId: 'run_1', title: 'Write the refund module', body: 'Added src/refund.ts with its tests.' }]);
  });

  it('Discard… names what is lost before it discards', async () => {
    const holding = aLandingPlan({
      holdings: { uncommittedFiles: ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts'], unlandedCommits: aLandingPlan().holdings.unlandedCommits, diskBytes: 3 * 1024 * 1024 },
    });
    const { user, panel, client } = showChanges({ getLandingPlan: () => holding, discardRun: () => aRun({ landing: { ...aRun().landing, state: 'discarded', discardedAt: '2026-03-02T09:20:00.000Z' } }) });
    await user.click(await within(panel).findByRole('button', { name: 'Discard…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Discard the run’s work' });
    expect(description(dialog)).toMatch(/^Discard this run’s work\? Its store, its branch console\/run_1 and its files are removed/);
    expect(within(within(dialog).getByRole('list', { name: 'What is lost' })).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      '4 uncommitted files: src/a.ts, src/b.ts, src/c.ts and 1 more',
      '2 commits not landed: Add the refund module, Test refunds',
      '3.0 MB on disk',
    ]);
    expect(client.inputsOf('discardRun')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Discard' }));
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(client.inputsOf('discardRun')).toEqual([{ runId: 'run_1' }]);
  });

  it('Discard… of a run whose work was never brought back from its host says that work goes too, not that it holds nothing', async () => {
    const empty = aLandingPlan({ holdings: { uncommittedFiles: [], unlandedCommits: [], diskBytes: null } });
    const run = aRun({ hostWorkLeftSince: '2026-03-02T09:20:00.000Z', confinement: { ...aRun().confinement, host: 'build-box' } });
    const { user, panel } = showChanges({ getLandingPlan: () => empty }, { run });
    await user.click(await within(panel).findByRole('button', { name: 'Discard…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Discard the run’s work' });
    expect(within(dialog).queryByText(/It holds nothing the project does not have/)).toBeNull();
    expect(
      within(dialog).getByText(
        'Its work on build-box was never brought back, so it is not counted here. Discarding the run removes it on build-box too. To keep it, use Fetch the work again on the run’s notice first.',
      ),
    ).toBeTruthy();
  });

  it('a run that cannot be landed says why and offers only Discard…', async () => {
    const { panel } = showChanges({
      getLandingPlan: () => aLandingPlan({ available: false, blockedBy: 'The project is not a git repository: there is no branch to land in.' }),
    });
    expect(await within(panel).findByText('The project is not a git repository: there is no branch to land in.')).toBeTruthy();
    expect(within(panel).queryByRole('list', { name: 'What the run holds' })).toBeNull();
    expect(within(panel).getAllByRole('button').map((button) => button.textContent)).toEqual(['Refresh changes', 'Open folder', 'Discard…']);
  });

  it('a run whose files were cleaned up says so, shows the kept summary, and offers nothing but viewing it', async () => {
    const run = aRun({ landing: aRunLanding({ filesRemovedAt: '2026-03-09T10:00:00.000Z', diskBytes: null }) });
    const { panel, client } = showChanges({ getRunDiff: () => aRunDiff({ ...refundDiff, filesRemovedAt: '2026-03-09T10:00:00.000Z' }) }, { run });
    expect(await within(panel).findByText(/^The run’s files were cleaned up on .+\. This is the summary of its changes the console kept\.$/)).toBeTruthy();
    expect(within(panel).getByRole('list', { name: 'Files changed' })).toBeTruthy();
    expect(within(panel).getByRole('group', { name: 'Landing' }).textContent).toMatch(
      // The files' removal is said once, in the note above, not again here.
      /^LandedLanded in main as c3d4e5f \(squash\) on .+ by Ada Operator <ada@example\.com>\.$/,
    );
    expect(within(panel).getAllByRole('button').map((button) => button.textContent)).toEqual(['Refresh changes']);
    expect(client.inputsOf('getLandingPlan')).toEqual([]);
  });
});

/** An answer the test gives when it chooses: the request stays on its way until then. */
function heldAnswer<T>(value: T) {
  let release!: () => void;
  const answered = new Promise<void>((resolve) => (release = resolve));
  return { answer: () => answered.then(() => value), release };
}

describe('a double click sends one request', () => {
  it('Commit, Land, Push branch and Discard each send theirs once, however fast the second click comes', async () => {
    const dirty = aLandingPlan({ holdings: { uncommittedFiles: ['src/refund.ts'], unlandedCommits: [], diskBytes: null }, remote: { name: 'origin', url: 'git@github.com:ada/shop.git' } });
    const commit = heldAnswer({ commit: 'd4e5f60718293a4b5c6d7e8f9012345678901a2b', files: ['src/refund.ts'] });
    const push = heldAnswer(aRunLanding());
    const discard = heldAnswer(aRun({ landing: { ...aRun().landing, state: 'discarded', discardedAt: '2026-03-02T09:20:00.000Z' } }));
    let committed = false;
    const { user, panel, client } = showChanges({
      getLandingPlan: () => (committed ? aLandingPlan({ remote: { name: 'origin', url: 'git@github.com:ada/shop.git' } }) : dirty),
      commitRunChanges: () => commit.answer().finally(() => (committed = true)),
      pushRunBranch: push.answer,
      discardRun: discard.answer,
    });

    await user.click(await within(panel).findByRole('button', { name: 'Commit…' }));
    const commitDialog = screen.getByRole('dialog', { name: 'Commit the run’s changes' });
    const commitButton = within(commitDialog).getByRole('button', { name: 'Commit' });
    // Two clicks in the same instant, before anything is drawn in between; then another one later.
    fireEvent.click(commitButton);
    fireEvent.click(commitButton);
    expect(await within(commitDialog).findByText('Saving…')).toBeTruthy();
    await user.click(commitButton);
    commit.release();
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(client.inputsOf('commitRunChanges')).toHaveLength(1);

    const pushButton = await within(panel).findByRole('button', { name: 'Push branch' });
    fireEvent.click(pushButton);
    fireEvent.click(pushButton);
    push.release();
    await vi.waitFor(() => expect(pushButton.getAttribute('aria-disabled')).toBeNull());
    expect(client.inputsOf('pushRunBranch')).toHaveLength(1);

    await user.click(within(panel).getByRole('button', { name: 'Discard…' }));
    const discardDialog = screen.getByRole('alertdialog', { name: 'Discard the run’s work' });
    const discardButton = within(discardDialog).getByRole('button', { name: 'Discard' });
    fireEvent.click(discardButton);
    fireEvent.click(discardButton);
    expect(await within(discardDialog).findByText('Removing the run’s files…')).toBeTruthy();
    expect(discardButton.getAttribute('aria-disabled')).toBe('true');
    discard.release();
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(client.inputsOf('discardRun')).toHaveLength(1);
  });

  it('Land sends one landing for a double click on its button', async () => {
    const landed = heldAnswer({ landing: aRunLanding(), workingCopyUpdated: false, discarded: [] });
    const { user, panel, client } = showChanges({ landRun: landed.answer });
    const dialog = await openLandDialog(user, panel);
    const land = within(dialog).getByRole('button', { name: 'Land' });
    fireEvent.click(land);
    fireEvent.click(land);
    expect(await within(dialog).findByText('Landing…')).toBeTruthy();
    expect(land.getAttribute('aria-disabled')).toBe('true');
    await user.click(land);
    landed.release();
    expect(await screen.findByRole('dialog', { name: 'Landed' })).toBeTruthy();
    expect(client.inputsOf('landRun')).toEqual([{ runId: 'run_1', target: 'main', strategy: 'fast-forward' }]);
  });
});
