import { describe, expect, it } from 'vitest';
import { emptyPriceRow, priceRowProblems, priceTableInput, rowsChanged, rowsFromTable, type PriceRow } from './price-form';

const table = {
  currency: 'USD' as const,
  entries: [{ provider: 'openai', model: 'gpt-5', inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125 }],
};

function row(changes: Partial<PriceRow>, key = 1): PriceRow {
  return { ...emptyPriceRow(key), provider: 'openai', model: 'gpt-5', input: '1.25', cachedInput: '0.125', output: '10', ...changes };
}

describe('the Prices form', () => {
  it('shows the saved table as rows, and sends the rows back as the same table', () => {
    let key = 0;
    const rows = rowsFromTable(table, () => ++key);
    expect(rows).toEqual([{ key: 1, provider: 'openai', model: 'gpt-5', input: '1.25', cachedInput: '0.125', output: '10' }]);
    expect(priceTableInput(rows)).toEqual(table);
    expect(rowsChanged(rows, table)).toBe(false);
    expect(rowsChanged([{ ...rows[0]!, output: '12' }], table)).toBe(true);
    expect(rowsChanged([...rows, emptyPriceRow(2)], table)).toBe(true);
  });

  it('trims what was typed', () => {
    expect(priceTableInput([row({ provider: ' anthropic ', model: ' claude-sonnet-4* ', input: ' 3 ', output: '15', cachedInput: '.3' })])).toEqual({
      currency: 'USD',
      entries: [{ provider: 'anthropic', model: 'claude-sonnet-4*', inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 }],
    });
  });

  it('names each field that is wrong, in the row it is in', () => {
    const problems = priceRowProblems([
      row({}, 1),
      row({ provider: '', model: 'gpt-*-mini', input: '', cachedInput: 'free', output: '-1' }, 2),
      row({ input: '200000', output: '1e3' }, 3),
      row({ input: '2' }, 4),
    ]);
    expect(problems.has(1)).toBe(false);
    expect(problems.get(2)).toEqual({
      provider: 'Enter the provider (openai, anthropic, google, …).',
      model: 'A * matches only at the end of the model.',
      input: 'Enter a price per million tokens (0 if free).',
      cachedInput: 'Enter a number of dollars, such as 1.25.',
      output: 'Enter a number of dollars, such as 1.25.',
    });
    expect(problems.get(3)).toEqual({
      model: 'Row 1 prices this model already.',
      input: 'At most $100,000 per million tokens.',
      output: 'Enter a number of dollars, such as 1.25.',
    });
    expect(problems.get(4)).toEqual({ model: 'Row 1 prices this model already.' });
  });

  it('takes 0 as a price (a free model), and a prefix with a trailing *', () => {
    expect(priceRowProblems([row({ model: 'llama-*', input: '0', cachedInput: '0', output: '0' })]).size).toBe(0);
  });
});
