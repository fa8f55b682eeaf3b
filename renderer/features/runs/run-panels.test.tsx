import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { aRun, anAttempt } from '../../testing/contract-fixtures';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { AttemptsPanel, ConfinementPanel } from './run-panels';

const now = Date.parse('2026-03-02T09:10:00.000Z');

/** What a fact list says for `term`: the text of the definition after it. */
function fact(container: HTMLElement, term: string): string {
  const dt = within(container).getByRole('term', { name: (_name, element) => element.textContent === term });
  return dt.nextElementSibling?.textContent ?? '';
}

describe('the Attempts panel', () => {
  it('lists each attempt with its status, failure, how it ended and when it retries', () => {
    const run = aRun({
      status: 'running',
      attempts: [
        anAttempt({ number: 1, status: 'failed', failureCode: 'process_exit', exitCode: 1, retryAt: '2026-03-02T09:11:00.000Z', endedAt: '2026-03-02T09:05:00.000Z' }),
        anAttempt({ number: 2, status: 'cancelled', failureCode: 'cancelled', signal: 'SIGTERM', endedAt: '2026-03-02T09:08:00.000Z' }),
        anAttempt({ number: 3, cause: 'resume', status: 'running' }),
        anAttempt({ number: 4, cause: null, status: 'running' }),
      ],
    });
    renderInConsole(<AttemptsPanel run={run} now={now} />, { client: fakeOperatorClient() });
    const table = screen.getByRole('table', { name: 'Attempts' });
    const header = within(table).getAllByRole('columnheader').map((cell) => cell.textContent);
    expect(header).toEqual(['#', 'Why it started', 'Status', 'Failure', 'Exit', 'Retry at', 'Started', 'Ended']);
    const [first, second, third, fourth] = within(table).getAllByRole('row').slice(1);
    const cells = (row: HTMLElement | undefined) => within(row!).getAllByRole('cell').map((cell) => cell.textContent);

    expect(within(first!).getByRole('rowheader').textContent).toBe('1');
    expect(cells(first).slice(0, 4)).toEqual(['First start', 'Failed', 'process_exit', 'exit 1']);
    expect(within(first!).getAllByRole('time')[0]!.getAttribute('datetime')).toBe('2026-03-02T09:11:00.000Z');
    // Why each started is what the ledger recorded: a retry answers a failure, a resume is the operator's.
    expect(cells(second).slice(0, 5)).toEqual(['Retry after process_exit (exit code 1)', 'Cancelled', 'cancelled', 'signal SIGTERM', '—']);
    expect(cells(third).slice(0, 5)).toEqual(['Resumed by you', 'Running', '—', '—', '—']);
    expect(cells(third)[6]).toBe('—');
    expect(cells(fourth)[0]).toBe('Not recorded');
  });

  it('calls an attempt still running Unverifiable while the console service cannot be reached; an ended one keeps its word', () => {
    const client = fakeOperatorClient();
    client.setTransportState('reconnecting');
    const run = aRun({ status: 'running', attempts: [anAttempt({ number: 1, status: 'failed', failureCode: 'process_exit', exitCode: 1 }), anAttempt({ number: 2, status: 'running' })] });
    renderInConsole(<AttemptsPanel run={run} now={now} />, { client });
    const [first, second] = within(screen.getByRole('table', { name: 'Attempts' })).getAllByRole('row').slice(1);
    expect(within(first!).getAllByRole('cell')[1]!.textContent).toBe('Failed');
    expect(within(second!).getAllByRole('cell')[1]!.textContent).toBe('Unverifiable');
  });

  it('says when no attempt has started', () => {
    renderInConsole(<AttemptsPanel run={aRun({ status: 'queued', attempts: [], startedAt: null, endedAt: null })} now={now} />, { client: fakeOperatorClient() });
    expect(screen.getByText('No attempt has started yet.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });
});

describe('the Confinement panel', () => {
  it('a local run runs as the operator, and its writable roots read relative to its task root', () => {
    renderInConsole(<ConfinementPanel run={aRun()} />, { client: fakeOperatorClient() });
    const panel = screen.getByRole('region', { name: 'Confinement' });
    expect(fact(panel, 'Environment')).toBe('Local');
    expect(fact(panel, 'Sandbox')).toBe('None (local) · runs as you, with your rights');
    expect(fact(panel, 'Network')).toBe('Open (the host’s network)');
    expect(fact(panel, 'Home')).toBe('Preconfigured (your own login)');
    expect(within(panel).queryByText('Runs as')).toBeNull();
    const roots = within(panel).getByRole('list', { name: 'Writable roots' });
    expect(within(roots).getAllByRole('listitem').map((item) => [item.textContent, item.getAttribute('title')])).toEqual([
      ['view', '/data/tasks/run_1/view'],
      ['tmp', '/data/tasks/run_1/tmp'],
    ]);
  });

  it('a sandboxed run says who it runs as, whether its system calls are filtered, and what network it has', () => {
    const run = aRun({
      status: 'preparing',
      archived: false,
      confinement: {
        environmentName: 'Team sandbox',
        environmentKind: 'sandboxed',
        sandbox: 'bubblewrap',
        network: 'provider-only',
        homeMode: 'isolated',
        runsAs: 'nobody',
        syscallFilter: true,
        writableRoots: [],
        host: null,
      },
    });
    renderInConsole(<ConfinementPanel run={run} />, { client: fakeOperatorClient() });
    const panel = screen.getByRole('region', { name: 'Confinement' });
    expect(fact(panel, 'Environment')).toBe('Team sandbox (Sandboxed)');
    expect(fact(panel, 'Sandbox')).toBe('bubblewrap');
    expect(fact(panel, 'Runs as')).toBe('nobody');
    expect(fact(panel, 'System calls')).toBe('Filtered (no new namespaces, mounts, ptrace, keyrings, bpf, kernel modules)');
    expect(fact(panel, 'Network')).toBe('Provider API only');
    expect(fact(panel, 'Home')).toBe('Isolated');
    expect(fact(panel, 'Writable roots')).toBe('None yet: made when the run starts');
  });

  it('a run on an SSH host names the host and shows its writable roots there', () => {
    const runDir = '/home/remote/.operator-console/runs/run_1';
    const run = aRun({
      status: 'running',
      archived: false,
      confinement: {
        environmentName: 'Build box',
        environmentKind: 'sandboxed',
        sandbox: 'bubblewrap',
        network: 'none',
        homeMode: 'isolated',
        runsAs: null,
        syscallFilter: true,
        writableRoots: [`${runDir}/view`, `${runDir}/tmp`],
        host: 'build-box',
      },
    });
    renderInConsole(<ConfinementPanel run={run} />, { client: fakeOperatorClient() });
    const panel = screen.getByRole('region', { name: 'Confinement' });
    expect(fact(panel, 'SSH host')).toBe('build-box · runs there, confined as here; its writable roots are on the host');
    const roots = within(panel).getByRole('list', { name: 'Writable roots' });
    expect(within(roots).getAllByRole('listitem').map((item) => item.getAttribute('title'))).toEqual([`${runDir}/view`, `${runDir}/tmp`]);
  });
});
