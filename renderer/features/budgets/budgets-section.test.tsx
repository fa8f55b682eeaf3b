import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Budget } from '../../../shared/usage';
import { OperatorError } from '../../../shared/errors';
import { aConnection, anAgent } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { SettingsPage } from '../settings/settings-page';

const agent = anAgent({ id: 'agt_1', name: 'Codex writer' });
const connection = aConnection({ id: 'con_1', name: 'Team key' });

function aBudget(changes: Partial<Budget> = {}): Budget {
  return {
    id: 'bgt_1',
    scope: 'agent',
    targetId: 'agt_1',
    targetName: 'Codex writer',
    measure: 'tokens',
    period: 'day',
    limit: 1000,
    spent: 1801,
    unpriced: { tokens: 0, models: [] },
    periodStart: '2026-12-02T00:00:00.000Z',
    resetsAt: '2026-12-03T00:00:00.000Z',
    exhausted: true,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
    ...changes,
  };
}

const reached = aBudget();
const money = aBudget({ id: 'bgt_2', scope: 'connection', targetId: 'con_1', targetName: 'Team key', measure: 'cost', period: 'month', limit: 25, spent: 3.5, exhausted: false });

function showBudgets(route: string, props: { budgetId?: string }, answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    listBudgets: () => [reached, money],
    listAgents: () => [agent],
    listConnections: () => [connection],
    ...answers,
  });
  return { ...renderInConsole(<SettingsPage section="budgets" {...props} />, { client, route }), client };
}

const row = (name: RegExp) => screen.findByRole('listitem', { name });

describe('Settings → Budgets', () => {
  it('lists each budget with what its period used of it, whether it is reached, and money as an estimate', async () => {
    showBudgets('/settings/budgets', {});
    const tokens = await row(/^Daily token budget for the agent “Codex writer”$/);
    expect(within(tokens).getByText('Reached')).toBeTruthy();
    expect(tokens.textContent).toContain('1,801 of 1,000 tokens used today');
    expect(tokens.textContent).toContain('(180%)');
    const cost = await row(/^Monthly money budget for the AI connection “Team key”$/);
    expect(within(cost).getByText('Within budget')).toBeTruthy();
    expect(cost.textContent).toContain('≈ $3.50 of ≈ $25.00 (estimated) used this month');
    expect(within(cost).getByRole('textbox', { name: 'Limit (USD, estimated)' })).toHaveProperty('value', '25.00');
    expect(screen.getByRole('link', { name: 'Budgets' }).getAttribute('aria-current')).toBe('page');
  });

  it('brings the budget a notice links to into view with its limit focused; raising it there saves the new limit', async () => {
    const { user, client } = showBudgets('/settings/budgets/bgt_1', { budgetId: 'bgt_1' }, { saveBudget: (input) => aBudget({ limit: input.limit, exhausted: false }) });
    const target = await row(/^Daily token budget/);
    expect(target.getAttribute('aria-current')).toBe('true');
    const limit = within(target).getByRole('textbox', { name: 'Limit (tokens)' });
    await waitFor(() => expect(document.activeElement).toBe(limit));

    await user.clear(limit);
    await user.type(limit, '5,000');
    await user.click(within(target).getByRole('button', { name: 'Save limit' }));
    expect(client.inputsOf('saveBudget')).toEqual([{ budgetId: 'bgt_1', scope: 'agent', targetId: 'agt_1', measure: 'tokens', period: 'day', limit: 5000 }]);
    expect(await within(target).findByText('Saved: the limit is 5,000 tokens.')).toBeTruthy();
  });

  it('says what is wrong with a limit before sending it', async () => {
    const { user, client } = showBudgets('/settings/budgets', {});
    const target = await row(/^Daily token budget/);
    const limit = within(target).getByRole('textbox', { name: 'Limit (tokens)' });
    await user.clear(limit);
    await user.type(limit, '2.5');
    await user.click(within(target).getByRole('button', { name: 'Save limit' }));
    expect(within(target).getByText('Enter a whole number of tokens, such as 200000.')).toBeTruthy();
    expect(limit.getAttribute('aria-invalid')).toBe('true');
    expect(client.inputsOf('saveBudget')).toEqual([]);
  });

  it('shows one agent’s budgets from its page’s link, and New budget starts on that agent', async () => {
    const { user, client } = showBudgets('/settings/budgets?agent=agt_1', {}, {
      saveBudget: () => {
        throw new OperatorError({ code: 'conflict', message: 'The agent “Codex writer” already has a daily token budget. Change that one instead.', actionUrl: '#/settings/budgets/bgt_1' });
      },
    });
    await row(/^Daily token budget/);
    expect(screen.queryByRole('listitem', { name: /Team key/ })).toBeNull();
    expect(screen.getByRole('note').textContent).toContain('Showing the budgets of the agent Codex writer');

    await user.click(screen.getByRole('button', { name: 'New budget' }));
    const dialog = screen.getByRole('dialog', { name: 'New budget' });
    expect(within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Agent' }).value).toBe('agt_1');
    await user.click(within(dialog).getByRole('button', { name: 'Create budget' }));
    expect(within(dialog).getByText('Enter a limit.')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByRole('textbox', { name: 'Limit (tokens)' }));

    await user.type(within(dialog).getByRole('textbox', { name: 'Limit (tokens)' }), '200000');
    await user.click(within(dialog).getByRole('button', { name: 'Create budget' }));
    expect(client.inputsOf('saveBudget')).toEqual([{ scope: 'agent', targetId: 'agt_1', measure: 'tokens', period: 'day', limit: 200_000 }]);
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('already has a daily token budget');
  });

  it('says a money budget whose usage has no price cannot count it, in the list and in its dialog, with a link to set that price', async () => {
    const uncounted = aBudget({
      id: 'bgt_4',
      measure: 'cost',
      limit: 5,
      spent: 0,
      exhausted: false,
      unpriced: { tokens: 1801, models: [{ priceProvider: 'openai', model: 'default' }] },
    });
    const { user } = showBudgets('/settings/budgets', {}, { listBudgets: () => [uncounted] });
    const card = await row(/^Daily money budget for the agent “Codex writer”$/);
    // Not “≈ $0.00 used · Within budget”: the tokens it could not price are named, and it says it cannot tell.
    expect(within(card).queryByText('Within budget')).toBeNull();
    expect(within(card).getByText('Cannot count')).toBeTruthy();
    expect(card.textContent).toContain('≈ $0.00 of ≈ $5.00 (estimated) used today + 1,801 tokens with no price (at least 0%)');
    expect(within(card).getByRole('note').textContent).toContain(
      'The price table has no price for default (openai): 1,801 tokens used today are not counted, so this budget cannot tell whether it is reached. Runs it holds are refused until the price is set.',
    );
    expect(within(card).getByRole('link', { name: 'Set a price for default (openai)' }).getAttribute('href')).toBe('#/settings/prices?provider=openai&model=default');

    await user.click(within(card).getByRole('button', { name: 'Edit Daily money budget for the agent “Codex writer”' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit budget' });
    expect(within(dialog).getByRole('note').textContent).toContain('1,801 tokens used today are not counted');
    expect(within(dialog).getByRole('link', { name: 'Set a price for default (openai)' })).toBeTruthy();
    expect(within(dialog).getByText(/A model with no price cannot be counted: the runs it holds are refused until that price is set\./)).toBeTruthy();
  });

  it('makes a money budget for a connection, and deletes one after asking', async () => {
    const { user, client } = showBudgets('/settings/budgets', {}, {
      saveBudget: (input) => aBudget({ ...input, id: 'bgt_3', targetName: 'Team key', spent: 0, exhausted: false }),
      deleteBudget: (input) => input,
    });
    await row(/^Daily token budget/);
    await user.click(screen.getByRole('button', { name: 'New budget' }));
    const dialog = screen.getByRole('dialog', { name: 'New budget' });
    await user.click(within(dialog).getByRole('radio', { name: 'An AI connection' }));
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'AI connection' }), 'con_1');
    await user.click(within(dialog).getByRole('radio', { name: 'Estimated money (USD)' }));
    await user.click(within(dialog).getByRole('radio', { name: 'Per day' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Limit (USD, estimated)' }), '$7.50');
    await user.click(within(dialog).getByRole('button', { name: 'Create budget' }));
    expect(client.inputsOf('saveBudget')).toEqual([{ scope: 'connection', targetId: 'con_1', measure: 'cost', period: 'day', limit: 7.5 }]);
    expect(await screen.findByText('Created the daily money budget for the AI connection “Team key”.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Delete Daily token budget for the agent “Codex writer”' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Delete budget' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(client.inputsOf('deleteBudget')).toEqual([{ budgetId: 'bgt_1' }]);
  });
});
