import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../../shared/errors';
import type { PriceTable } from '../../../shared/usage';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { aPriceTableState } from '../../testing/usage-fixtures';
import { SettingsPage } from '../settings/settings-page';
import { PricesSection } from './prices-section';

function showPrices(answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({
    getPriceTable: () => aPriceTableState(),
    setPriceTable: ({ table }) => (table ? aPriceTableState({ table, edited: true }) : aPriceTableState()),
    ...answers,
  });
  return { ...renderInConsole(<PricesSection />, { client, route: '/settings/prices' }), client };
}

/** Settings → Prices as a link opens it (its address may name a model to add). */
function showPricesAt(route: string) {
  const client = fakeOperatorClient({
    getPriceTable: () => aPriceTableState(),
    setPriceTable: ({ table }) => (table ? aPriceTableState({ table, edited: true }) : aPriceTableState()),
  });
  return { ...renderInConsole(<SettingsPage section="prices" />, { client, route }), client };
}

// By label: the provider field is a combobox (it suggests the known providers), the others text boxes.
const field = (name: string) => screen.getByLabelText<HTMLInputElement>(name);

describe('Settings → Prices', () => {
  it('shows the shipped table with the day its prices were checked, and how * matches', async () => {
    showPrices();
    const table = await screen.findByRole('table', { name: 'Price table' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('input')].map((input) => input.value));
    expect(rows).toEqual([
      ['openai', 'gpt-5', '1.25', '0.125', '10'],
      ['anthropic', 'claude-sonnet-4*', '3', '0.3', '15'],
    ]);
    expect(screen.getByText(/ships with, checked against the providers’ price pages on Wednesday, December 2, 2026\./)).toBeTruthy();
    expect(screen.getByText(/matches every model that starts with what comes before it/)).toBeTruthy();
    expect(field('Input price, $ per million tokens (row 1)').value).toBe('1.25');
    // Nothing to reset while the shipped prices are in use.
    expect(screen.queryByRole('button', { name: 'Reset to shipped prices' })).toBeNull();
  });

  it('adds a row, removes one, and saves the table as typed', async () => {
    const { user, client } = showPrices();
    await screen.findByRole('table', { name: 'Price table' });
    await user.click(screen.getByRole('button', { name: 'Remove row 2, claude-sonnet-4*' }));
    await user.click(screen.getByRole('button', { name: 'Add price' }));
    // The new row's first field has focus.
    expect(document.activeElement).toBe(field('Provider (row 2)'));
    await user.type(field('Provider (row 2)'), 'openai');
    await user.type(field('Model (row 2)'), 'fixture-*');
    await user.type(field('Input price, $ per million tokens (row 2)'), '2');
    await user.type(field('Cached input price, $ per million tokens (row 2)'), '0.2');
    await user.type(field('Output price, $ per million tokens (row 2)'), '20');
    await user.clear(field('Output price, $ per million tokens (row 1)'));
    await user.type(field('Output price, $ per million tokens (row 1)'), '12');
    expect(screen.getByText('Not saved yet.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save prices' }));

    expect(await screen.findByText('Saved 2 prices. Every estimate now uses them.')).toBeTruthy();
    const sent: PriceTable = {
      currency: 'USD',
      entries: [
        { provider: 'openai', model: 'gpt-5', inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 12 },
        { provider: 'openai', model: 'fixture-*', inputPerMillion: 2, cachedInputPerMillion: 0.2, outputPerMillion: 20 },
      ],
    };
    expect(client.inputsOf('setPriceTable')).toEqual([{ table: sent }]);
    expect(screen.queryByText('Not saved yet.')).toBeNull();
    expect(screen.getByText('You have edited these prices.', { exact: false })).toBeTruthy();
  });

  it('names each field that is wrong and sends nothing until it is fixed', async () => {
    const { user, client } = showPrices();
    await screen.findByRole('table', { name: 'Price table' });
    await user.click(screen.getByRole('button', { name: 'Add price' }));
    await user.type(field('Provider (row 3)'), 'openai');
    await user.type(field('Model (row 3)'), 'gpt-5');
    await user.type(field('Input price, $ per million tokens (row 3)'), 'cheap');
    await user.type(field('Output price, $ per million tokens (row 3)'), '10');
    await user.click(screen.getByRole('button', { name: 'Save prices' }));

    expect(client.inputsOf('setPriceTable')).toEqual([]);
    expect(screen.getByRole('alert').textContent).toBe('One row needs a fix before the prices can be saved.');
    const model = field('Model (row 3)');
    expect(model.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(model.getAttribute('aria-describedby')!)?.textContent).toBe('Row 1 prices this model already.');
    const input = field('Input price, $ per million tokens (row 3)');
    expect(document.getElementById(input.getAttribute('aria-describedby')!)?.textContent).toBe('Enter a number of dollars, such as 1.25.');
    const cached = field('Cached input price, $ per million tokens (row 3)');
    expect(document.getElementById(cached.getAttribute('aria-describedby')!)?.textContent).toBe('Enter a price per million tokens (0 if free).');
    // The first field that is wrong has focus.
    expect(document.activeElement).toBe(model);

    await user.clear(model);
    await user.type(model, 'gpt-5-nano');
    expect(model.getAttribute('aria-invalid')).toBeNull();
    await user.clear(input);
    await user.type(input, '0.05');
    await user.type(cached, '0.005');
    await user.click(screen.getByRole('button', { name: 'Save prices' }));
    expect(await screen.findByText('Saved 3 prices. Every estimate now uses them.')).toBeTruthy();
  });

  it('opened from a link naming a model with no price, adds its row with the input price focused and says what it is for', async () => {
    const { user, client } = showPricesAt('/settings/prices?provider=openai&model=default');
    const table = await screen.findByRole('table', { name: 'Price table' });
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(field('Provider (row 3)').value).toBe('openai');
    expect(field('Model (row 3)').value).toBe('default');
    await waitFor(() => expect(document.activeElement).toBe(field('Input price, $ per million tokens (row 3)')));
    expect(screen.getByRole('note').textContent).toContain('The last row is for default (openai), which has no price yet');
    await user.type(field('Input price, $ per million tokens (row 3)'), '2');
    await user.type(field('Cached input price, $ per million tokens (row 3)'), '0.2');
    await user.type(field('Output price, $ per million tokens (row 3)'), '20');
    await user.click(screen.getByRole('button', { name: 'Save prices' }));
    expect(await screen.findByText('Saved 3 prices. Every estimate now uses them.')).toBeTruthy();
    expect(client.inputsOf('setPriceTable')[0]!.table!.entries.at(-1)).toEqual({ provider: 'openai', model: 'default', inputPerMillion: 2, cachedInputPerMillion: 0.2, outputPerMillion: 20 });
  });

  it('adds no second row for a model the table prices already', async () => {
    showPricesAt('/settings/prices?provider=openai&model=gpt-5');
    const table = await screen.findByRole('table', { name: 'Price table' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(screen.getByRole('note').textContent).toBe('gpt-5 (openai) has a price in the table now.');
  });

  it('shows what the core refused', async () => {
    const { user } = showPrices({
      setPriceTable: () => {
        throw new OperatorError({ code: 'invalid_request', message: 'Rows 1 and 2 both price gpt-5 (openai): keep one of them.' });
      },
    });
    await screen.findByRole('table', { name: 'Price table' });
    await user.click(screen.getByRole('button', { name: 'Save prices' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not save the prices. Rows 1 and 2 both price gpt-5 (openai): keep one of them.');
  });

  it('goes back to the shipped prices after asking', async () => {
    const edited = aPriceTableState({ edited: true, table: { currency: 'USD', entries: [{ provider: 'openai', model: 'gpt-5', inputPerMillion: 9, outputPerMillion: 9, cachedInputPerMillion: 9 }] } });
    const { user, client } = showPrices({ getPriceTable: () => edited });
    expect((await screen.findByLabelText<HTMLInputElement>('Input price, $ per million tokens (row 1)')).value).toBe('9');
    await user.click(screen.getByRole('button', { name: 'Reset to shipped prices' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Reset to the shipped prices?' });
    expect(within(dialog).getByText(/checked on Wednesday, December 2, 2026/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Reset prices' }));

    expect(await screen.findByText('Back to the shipped prices. Every estimate now uses them.')).toBeTruthy();
    expect(client.inputsOf('setPriceTable')).toEqual([{ table: null }]);
    expect(field('Input price, $ per million tokens (row 1)').value).toBe('1.25');
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
