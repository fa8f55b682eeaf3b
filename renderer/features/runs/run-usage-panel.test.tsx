import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../../shared/errors';
import { aRun } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { aRunUsage, onSubscription, priced, unpriced } from '../../testing/usage-fixtures';
import { RunUsagePanel } from './run-usage-panel';

function showPanel(answers: ChannelAnswers, run = aRun()) {
  const client = fakeOperatorClient(answers);
  return { ...renderInConsole(<RunUsagePanel run={run} />, { client, route: `/runs/${run.id}` }), client };
}

const cellsOf = (row: HTMLElement) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent);

describe('the run’s Usage panel', () => {
  it('lists each attempt’s tokens and estimated cost, the total, and how the CLI’s reports were counted', async () => {
    const { client } = showPanel({
      getRunUsage: () =>
        aRunUsage({
          attempts: [
            { attemptNumber: 1, tokens: { input: 12_000, output: 3000, cachedInput: 8000, reasoning: 1200 }, cost: priced(0.041), counting: 'per_session', reports: 3 },
            { attemptNumber: 2, tokens: { input: 4000, output: 900, cachedInput: 3500, reasoning: 0 }, cost: priced(0.0095), counting: 'per_session', reports: 1 },
          ],
          total: { input: 16_000, output: 3900, cachedInput: 11_500, reasoning: 1200 },
          cost: priced(0.0505),
        }),
    });
    const table = await screen.findByRole('table', { name: 'Usage per attempt' });
    expect(client.inputsOf('getRunUsage')).toEqual([{ runId: 'run_1' }]);
    expect(within(table).getAllByRole('row').map(cellsOf)).toEqual([
      ['Attempt', 'Input', 'Cached input', 'Output', 'Reasoning', 'Reports', 'Estimated cost'],
      ['1', '12,000', '8,000', '3,000', '1,200', '3', '≈ $0.04 est.'],
      ['2', '4,000', '3,500', '900', '0', '1', '≈ $0.0095 est.'],
      ['Total', '16,000', '11,500', '3,900', '1,200', '4', '≈ $0.05 est.'],
    ]);
    const notes = within(screen.getByRole('region', { name: 'Usage' })).getByRole('list', { name: 'How this usage was counted' });
    expect(within(notes).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Paid through the AI connection’s API key: estimated at the prices in Settings → Prices.',
      'Model gpt-5.',
      'Each report was the session’s total since it began, earlier turns included; a resumed attempt counts only what it added since the attempt before.',
    ]);
  });

  it('shows a subscription’s tokens and no money, and links a model without a price to Settings → Prices', async () => {
    showPanel({
      getRunUsage: () =>
        aRunUsage({
          billing: 'subscription',
          attempts: [{ attemptNumber: 1, tokens: { input: 100, output: 50, cachedInput: 0, reasoning: 0 }, cost: onSubscription, counting: 'per_invocation', reports: 2 }],
          total: { input: 100, output: 50, cachedInput: 0, reasoning: 0 },
          cost: onSubscription,
        }),
    });
    const table = await screen.findByRole('table', { name: 'Usage per attempt' });
    expect(cellsOf(within(table).getAllByRole('row')[1]!)).toEqual(['1', '100', '0', '50', '0', '2', 'Subscription: tokens only']);
    expect(screen.getByText('Paid by a subscription plan (its token): tokens only, no money is estimated.')).toBeTruthy();
    expect(screen.getByText('Each report was the CLI’s total so far for this attempt; the last one counts.')).toBeTruthy();
    expect(screen.queryByText(/\$/)).toBeNull();
  });

  it('names a model the price table lacks, with a link to add its price', async () => {
    showPanel({
      getRunUsage: () =>
        aRunUsage({
          billing: 'operator_login',
          model: 'gpt-9',
          attempts: [{ attemptNumber: 1, tokens: { input: 100, output: 50, cachedInput: 0, reasoning: 0 }, cost: unpriced(150, 'gpt-9 (openai)'), counting: 'per_call', reports: 4 }],
          total: { input: 100, output: 50, cachedInput: 0, reasoning: 0 },
          cost: unpriced(150, 'gpt-9 (openai)'),
        }),
    });
    const links = await screen.findAllByRole('link', { name: 'No price for gpt-9 (openai): 150 tokens' });
    expect(links.map((link) => link.getAttribute('href'))).toEqual(['#/settings/prices', '#/settings/prices']);
    expect(screen.getByText(/Run on your own login: estimated at API prices/)).toBeTruthy();
    expect(screen.getByText('Each report the CLI printed was one model call; the reports were added up.')).toBeTruthy();
  });

  it('says so when the CLI reported nothing, while it runs and after', async () => {
    const silent = aRunUsage({ reported: false, attempts: [], total: { input: 0, output: 0, cachedInput: 0, reasoning: 0 }, cost: priced(0) });
    const running = showPanel({ getRunUsage: () => silent }, aRun({ status: 'running', endedAt: null }));
    expect(await screen.findByText('No usage reported yet: the CLI reports its tokens as it goes.')).toBeTruthy();
    running.unmount();
    showPanel({ getRunUsage: () => silent });
    expect(await screen.findByText('The CLI reported no token usage for this run (a plain command reports none).')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says it could not load the usage, and tries again when asked', async () => {
    let fail = true;
    const { user, client } = showPanel({
      getRunUsage: () => {
        if (fail) throw new OperatorError({ code: 'internal', message: 'The console could not complete this request. Details are in its log.' });
        return aRunUsage();
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load the run’s usage.');
    expect(alert.textContent).toContain('The console could not complete this request.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: 'Usage per attempt' })).toBeTruthy();
    expect(client.inputsOf('getRunUsage').length).toBeGreaterThanOrEqual(2);
  });
});
