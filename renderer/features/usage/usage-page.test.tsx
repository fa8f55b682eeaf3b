import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { aUsageReport, aUsageRow, onSubscription, priced, unpriced } from '../../testing/usage-fixtures';
import { UsagePage } from './usage-page';

const subscriptionRow = aUsageRow({
  runId: 'run_2',
  taskTitle: 'Fix the invoice rounding',
  agentName: 'Claude writer',
  connectionName: 'Max plan',
  providerId: 'claude-code',
  model: 'claude-sonnet-4-6',
  billing: 'subscription',
  tokens: { input: 5000, output: 700, cachedInput: 4000, reasoning: 0 },
  cost: onSubscription,
});
const unpricedRow = aUsageRow({
  runId: 'run_3',
  taskTitle: '=HYPERLINK("http://evil.example")',
  connectionId: null,
  connectionName: null,
  billing: 'operator_login',
  model: 'gpt-9',
  cost: unpriced(1_100_000, 'gpt-9 (openai)'),
});
const report = aUsageReport({
  rows: [aUsageRow(), subscriptionRow, unpricedRow],
  total: {
    tokens: { input: 2_005_000, output: 200_700, cachedInput: 4000, reasoning: 0 },
    cost: { amount: 2.25, currency: 'USD', basis: 'partly_priced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1_100_000 },
  },
});

function showUsage(route = '/usage?from=2026-03-01&to=2026-03-02', answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    getUsageReport: ({ from, to, groupBy, projectId }) => ({ ...report, query: { from, to, groupBy, projectId: projectId ?? null } }),
    listProjects: () => [{ id: 'project_1', name: 'checkout', path: '/work/checkout', isGitRepo: true, createdAt: '2026-03-01T09:00:00.000Z' }],
    ...answers,
  });
  return { ...renderInConsole(<UsagePage />, { client, route }), client };
}

const cellsOf = (row: HTMLElement) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent);

describe('the Usage page', () => {
  beforeEach(() => {
    // Only the clock: "today" is 2 March 2026 for the presets; timers stay real for the queries.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 2, 2, 10, 30));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('asks for the range in its address and lists every attempt, money as an estimate, a subscription as tokens only', async () => {
    const { client } = showUsage();
    const table = await screen.findByRole('table', { name: 'Attempts' });
    expect(client.inputsOf('getUsageReport')).toEqual([{ from: '2026-03-01', to: '2026-03-02', groupBy: 'agent' }]);
    const rows = within(table).getAllByRole('row').slice(1).map(cellsOf);
    expect(rows).toEqual([
      ['Mar 2', 'Write the refund module', '1', 'checkout', 'Codex writer', 'Team key', 'gpt-5', 'API key', '1,000,000', '0', '100,000', '0', '≈ $2.25 est.'],
      ['Mar 2', 'Fix the invoice rounding', '1', 'checkout', 'Claude writer', 'Max plan', 'claude-sonnet-4-6', 'Subscription', '5,000', '4,000', '700', '0', 'Subscription: tokens only'],
      ['Mar 2', '=HYPERLINK("http://evil.example")', '1', 'checkout', 'Codex writer', 'Own login (no connection)', 'gpt-9', 'Own login', '1,000,000', '0', '100,000', '0', 'No price for gpt-9 (openai): 1,100,000 tokens'],
    ]);
    expect(within(table).getByRole('link', { name: 'Fix the invoice rounding' }).getAttribute('href')).toBe('#/runs/run_2');
    expect(within(table).getByRole('link', { name: 'No price for gpt-9 (openai): 1,100,000 tokens' }).getAttribute('href')).toBe('#/settings/prices');

    const totals = screen.getByRole('definition', { name: (_name, element) => element.previousElementSibling?.textContent === 'Estimated cost' });
    expect(totals.textContent).toBe('≈ $2.25 est. + 1,100,000 tokens with no price: gpt-9 (openai)');
    expect(screen.getByText(/The table has no price for gpt-9 \(openai\): their 1,100,000 tokens are not in the estimates\./)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Add their prices in Settings → Prices' }).getAttribute('href')).toBe('#/settings/prices');
    expect(screen.getByText(/Runs on your own login \(no connection\) are estimated at API prices/)).toBeTruthy();
    // The chart's numbers, for screen readers.
    const numbers = screen.getByRole('table', { name: 'Tokens by day, stacked by agent' });
    expect(within(numbers).getAllByRole('row').map(cellsOf)).toEqual([
      ['Day', 'Codex writer', 'Total'],
      ['Sunday, March 1, 2026', '0 tokens', '0 tokens'],
      ['Monday, March 2, 2026', '1,100,000 tokens', '1,100,000 tokens'],
    ]);
    const top = screen.getByRole('list', { name: 'Top tasks by estimated cost' });
    expect(within(top).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Write the refund module≈ $2.25 est. · 1,100,000 tokens']);
  });

  it('exports the rows as a CSV file named for the range, formulas defused', async () => {
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:usage';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(`${this.download} ${this.href}`);
    });
    const { user } = showUsage();
    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
    expect(downloads).toEqual(['usage-2026-03-01-to-2026-03-02.csv blob:usage']);
    expect(blobs[0]!.type).toBe('text/csv;charset=utf-8');
    const text = (await blobs[0]!.text()).replace(/^\uFEFF/, '');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'Day,Run,Attempt,Task,Project,Agent,Connection,Provider,Model,Billing,Input tokens,Cached input tokens,Output tokens,Reasoning tokens,"Estimated cost (USD, estimate)",Cost note',
    );
    expect(lines.slice(1)).toEqual([
      '2026-03-02,run_1,1,Write the refund module,checkout,Codex writer,Team key,codex,gpt-5,API key,1000000,0,100000,0,2.25,',
      '2026-03-02,run_2,1,Fix the invoice rounding,checkout,Claude writer,Max plan,claude-code,claude-sonnet-4-6,Subscription,5000,4000,700,0,,"Subscription: tokens only, no cost"',
      `2026-03-02,run_3,1,"'=HYPERLINK(""http://evil.example"")",checkout,Codex writer,Own login (no connection),codex,gpt-9,Own login,1000000,0,100000,0,,No price for gpt-9 (openai)`,
      '',
    ]);
  });

  it('changes the range with a preset or the date fields, and refuses a range that ends before it starts', async () => {
    const { user, client } = showUsage('/usage');
    await screen.findByRole('table', { name: 'Attempts' });
    // No range in the address: the last 7 days, today included.
    expect(client.inputsOf('getUsageReport').at(-1)).toEqual({ from: '2026-02-24', to: '2026-03-02', groupBy: 'agent' });
    expect(screen.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');

    await user.click(screen.getByRole('button', { name: 'This month' }));
    expect(currentRoute()).toBe('/usage');
    expect(window.location.hash).toBe('#/usage?from=2026-03-01&to=2026-03-02&group=agent&measure=tokens');
    await vi.waitFor(() => expect(client.inputsOf('getUsageReport').at(-1)).toEqual({ from: '2026-03-01', to: '2026-03-02', groupBy: 'agent' }));
    expect(screen.getByRole('button', { name: 'This month' }).getAttribute('aria-pressed')).toBe('true');

    const from = screen.getByLabelText<HTMLInputElement>('From');
    const asked = client.inputsOf('getUsageReport').length;
    await user.clear(from);
    await user.type(from, '2026-03-05');
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'The first day must not be after the last.');
    expect(from.getAttribute('aria-invalid')).toBe('true');
    expect(client.inputsOf('getUsageReport')).toHaveLength(asked);

    await user.clear(from);
    await user.type(from, '2026-02-10');
    await vi.waitFor(() => expect(client.inputsOf('getUsageReport').at(-1)).toEqual({ from: '2026-02-10', to: '2026-03-02', groupBy: 'agent' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: 'This month' }).getAttribute('aria-pressed')).toBe('false');
  });

  it('stacks by connection and narrows to a project when asked', async () => {
    const { user, client } = showUsage();
    await screen.findByRole('table', { name: 'Attempts' });
    await user.selectOptions(screen.getByLabelText('Group by'), 'Connection');
    await vi.waitFor(() => expect(client.inputsOf('getUsageReport').at(-1)).toEqual({ from: '2026-03-01', to: '2026-03-02', groupBy: 'connection' }));
    expect(await screen.findByRole('table', { name: 'Tokens by day, stacked by AI connection' })).toBeTruthy();
    await user.selectOptions(screen.getByLabelText('Project'), 'checkout');
    await vi.waitFor(() =>
      expect(client.inputsOf('getUsageReport').at(-1)).toEqual({ from: '2026-03-01', to: '2026-03-02', groupBy: 'connection', projectId: 'project_1' }),
    );
    await user.selectOptions(screen.getByLabelText('Chart'), 'Estimated cost');
    expect(await screen.findByRole('table', { name: 'Estimated cost by day, stacked by AI connection' })).toBeTruthy();
  });

  it('in estimated cost, says how many tokens of each day had no price rather than drawing them as $0', async () => {
    showUsage('/usage?from=2026-03-01&to=2026-03-02&measure=cost', {
      getUsageReport: () =>
        aUsageReport({
          days: [
            { day: '2026-03-01', series: [] },
            { day: '2026-03-02', series: [{ key: 'agent_1', label: 'Codex writer', tokens: 1_100_000, cost: 2.25, unpricedTokens: 1801 }] },
          ],
        }),
    });
    const chart = await screen.findByRole('figure', { name: /^Estimated cost by day, stacked by agent/ });
    expect(chart.querySelector('figcaption')?.textContent).toBe('Estimated cost by day, stacked by agent · subscriptions count no money here; 1,801 tokens with no price are not in these bars');
    const numbers = within(chart).getByRole('table', { name: 'Estimated cost by day, stacked by agent' });
    expect(within(numbers).getAllByRole('row').slice(1).map(cellsOf)).toEqual([
      ['Sunday, March 1, 2026', '≈ $0.00 est.', '≈ $0.00 est.'],
      ['Monday, March 2, 2026', '≈ $2.25 est. + 1,801 tokens with no price', '≈ $2.25 est. + 1,801 tokens with no price'],
    ]);
  });

  it('says when the range had no usage', async () => {
    showUsage('/usage?from=2026-03-01&to=2026-03-02', {
      getUsageReport: () => aUsageReport({ rows: [], days: [{ day: '2026-03-01', series: [] }], series: [], topTasks: [], total: { tokens: { input: 0, output: 0, cachedInput: 0, reasoning: 0 }, cost: priced(0) } }),
    });
    expect(await screen.findByText('No usage in these days')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
  });

  it('says the table lists only the newest attempts when the core cut it', async () => {
    showUsage('/usage?from=2026-03-01&to=2026-03-02', { getUsageReport: () => aUsageReport({ rowsTruncated: true }) });
    expect(await screen.findByText(/Only the newest 1 are listed \(and exported\); the charts and totals count every one\./)).toBeTruthy();
  });
});
