import type { PriceEntry, PriceTable } from '../../../shared/usage';

/**
 * Settings → Prices as plain values: one row per model price, its numbers as typed, so what the form
 * accepts and sends is tested without a DOM. The core checks the same rules (shared/usage.ts, and one
 * price per model); saying them per field first tells the operator which cell to fix.
 */

export interface PriceRow {
  key: number;
  provider: string;
  model: string;
  input: string;
  cachedInput: string;
  output: string;
}

export const priceFields = ['provider', 'model', 'input', 'cachedInput', 'output'] as const;
export type PriceField = (typeof priceFields)[number];
export type PriceRowProblems = Partial<Record<PriceField, string>>;

export const maxPriceRows = 500;
const maxPrice = 100_000;

export function rowsFromTable(table: PriceTable, nextKey: () => number): PriceRow[] {
  return table.entries.map((entry) => ({
    key: nextKey(),
    provider: entry.provider,
    model: entry.model,
    input: String(entry.inputPerMillion),
    cachedInput: String(entry.cachedInputPerMillion),
    output: String(entry.outputPerMillion),
  }));
}

export function emptyPriceRow(key: number): PriceRow {
  return { key, provider: '', model: '', input: '', cachedInput: '', output: '' };
}

function priceProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'Enter a price per million tokens (0 if free).';
  // Number('') is 0 and Number('1e3') is 1000: only plain decimals are prices here.
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(trimmed)) return 'Enter a number of dollars, such as 1.25.';
  if (Number(trimmed) > maxPrice) return `At most $${maxPrice.toLocaleString('en-US')} per million tokens.`;
  return undefined;
}

/** What is wrong with each row, by field; rows with nothing wrong are left out. */
export function priceRowProblems(rows: readonly PriceRow[]): Map<number, PriceRowProblems> {
  const problems = new Map<number, PriceRowProblems>();
  const seen = new Map<string, number>();
  rows.forEach((row, index) => {
    const found: PriceRowProblems = {};
    const provider = row.provider.trim();
    const model = row.model.trim();
    if (provider === '') found.provider = 'Enter the provider (openai, anthropic, google, …).';
    else if (provider.length > 64) found.provider = 'At most 64 characters.';
    if (model === '') found.model = 'Enter the model, or a prefix ending in *.';
    else if (model.length > 200) found.model = 'At most 200 characters.';
    else if (model.slice(0, -1).includes('*')) found.model = 'A * matches only at the end of the model.';
    if (provider !== '' && model !== '') {
      const key = JSON.stringify([provider, model]);
      const earlier = seen.get(key);
      if (earlier !== undefined) found.model ??= `Row ${earlier + 1} prices this model already.`;
      else seen.set(key, index);
    }
    const input = priceProblem(row.input);
    const cachedInput = priceProblem(row.cachedInput);
    const output = priceProblem(row.output);
    if (input) found.input = input;
    if (cachedInput) found.cachedInput = cachedInput;
    if (output) found.output = output;
    if (Object.keys(found).length > 0) problems.set(row.key, found);
  });
  return problems;
}

/** The table the rows stand for (call once priceRowProblems found nothing). */
export function priceTableInput(rows: readonly PriceRow[]): PriceTable {
  return {
    currency: 'USD',
    entries: rows.map(
      (row): PriceEntry => ({
        provider: row.provider.trim(),
        model: row.model.trim(),
        inputPerMillion: Number(row.input.trim()),
        cachedInputPerMillion: Number(row.cachedInput.trim()),
        outputPerMillion: Number(row.output.trim()),
      }),
    ),
  };
}

/** Whether the rows differ from the table saved (to say there is something to save). */
export function rowsChanged(rows: readonly PriceRow[], table: PriceTable): boolean {
  if (rows.length !== table.entries.length) return true;
  return rows.some((row, index) => {
    const entry = table.entries[index]!;
    return (
      row.provider.trim() !== entry.provider ||
      row.model.trim() !== entry.model ||
      Number(row.input) !== entry.inputPerMillion ||
      Number(row.cachedInput) !== entry.cachedInputPerMillion ||
      Number(row.output) !== entry.outputPerMillion
    );
  });
}
