import { Fragment, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { connectionProviders } from '../../../shared/entities';
import { unpricedModelLabel, type PriceTableState } from '../../../shared/usage';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';
import { focusRouteTarget } from '../../ui/route-focus';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { emptyPriceRow, maxPriceRows, priceRowProblems, priceTableInput, rowsChanged, rowsFromTable, type PriceField, type PriceRow } from './price-form';
import { formatDayLong } from './usage-format';
import { usePriceTable, useSetPriceTable } from './use-usage';
import './usage.css';

const priceColumns: Array<{ field: Extract<PriceField, 'input' | 'cachedInput' | 'output'>; label: string }> = [
  { field: 'input', label: 'Input' },
  { field: 'cachedInput', label: 'Cached input' },
  { field: 'output', label: 'Output' },
];

/** A model to add a price for: from a link (`?provider=…&model=…`) where a cost or a budget lacked one. */
export interface PriceToAdd {
  priceProvider: string;
  model: string;
}

/** The model a Prices link names (`?provider=openai&model=gpt-9`), or null. */
export function priceToAddFromSearch(search: string): PriceToAdd | null {
  const params = new URLSearchParams(search);
  const priceProvider = params.get('provider')?.trim();
  const model = params.get('model')?.trim();
  return priceProvider && model ? { priceProvider, model } : null;
}

/**
 * Settings → Prices: the table every cost estimate is made with, in US dollars per million tokens,
 * edited as rows and saved together, or put back to the prices the console ships with. `addPrice`:
 * a model a link named (a budget that could not count it, say): a row for it is added, ready to price.
 */
export function PricesSection({ addPrice = null }: { addPrice?: PriceToAdd | null }) {
  const prices = usePriceTable();
  return (
    <section className="settings-section price-editor" aria-labelledby="settings-prices-heading">
      <h2 id="settings-prices-heading" className="section-title">
        Prices
      </h2>
      <p className="section-intro">
        Every cost the console shows is an estimate made with these prices, in US dollars per million tokens. Cached input is the part of
        the input a provider read from its cache. Runs on a subscription token are never priced: they show tokens only. Long-context, batch
        and cache-write surcharges are not modelled.
      </p>
      <p className="section-intro">
        A model ending in <code>*</code> matches every model that starts with what comes before it: <code>claude-sonnet-4*</code> prices{' '}
        <code>claude-sonnet-4-6</code>. A model’s own row wins over a <code>*</code> row, and a longer <code>*</code> row over a shorter one.
        The provider is the one whose API bills the tokens: the AI connection’s provider, else the CLI’s own (<code>openai</code>,{' '}
        <code>anthropic</code>, <code>google</code>, …).
      </p>
      {prices.isPending ? (
        <Loading what="the prices" />
      ) : prices.isError ? (
        <QueryError what="the prices" error={prices.error} onRetry={() => void prices.refetch()} />
      ) : (
        <PriceEditor state={prices.data} addPrice={addPrice} />
      )}
    </section>
  );
}

/**
 * The rows start from the table when the section opens and from what each save or reset answers; a
 * change saved elsewhere meanwhile (another window) does not overwrite what is being typed here.
 */
function PriceEditor({ state, addPrice }: { state: PriceTableState; addPrice: PriceToAdd | null }) {
  // A model a link named gets a row of its own unless the table has one for it already.
  const adding = addPrice && !state.table.entries.some((entry) => entry.provider === addPrice.priceProvider && entry.model === addPrice.model) ? addPrice : null;
  const keys = useRef(state.table.entries.length + (adding ? 1 : 0));
  const nextKey = () => ++keys.current;
  const [rows, setRows] = useState<PriceRow[]>(() => {
    let key = 0;
    const table = rowsFromTable(state.table, () => ++key);
    return adding ? [...table, { ...emptyPriceRow(++key), provider: adding.priceProvider, model: adding.model }] : table;
  });
  const [problems, setProblems] = useState<ReturnType<typeof priceRowProblems>>(new Map());
  const [saved, setSaved] = useState<string | null>(null);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const save = useSetPriceTable();
  const submission = useSingleSubmit();
  const reset = useSetPriceTable();
  const tableId = useId();
  const providersId = useId();
  const unitId = useId();
  const inputs = useRef(new Map<string, HTMLInputElement>());
  const focusTarget = useRef<string | null>(null);

  useEffect(() => {
    if (focusTarget.current === null) return;
    inputs.current.get(focusTarget.current)?.focus();
    focusTarget.current = null;
  });
  // The added row's input price is what the link named: focused once, in view (the layout leaves a
  // page's own focus alone, ui/route-focus.ts).
  const [addedKey] = useState(() => (adding ? state.table.entries.length + 1 : null));
  useEffect(() => {
    if (addedKey !== null) focusRouteTarget(inputs.current.get(`${addedKey}:input`));
  }, [addedKey]);

  const inputRef = (key: number, field: PriceField) => (element: HTMLInputElement | null) => {
    const id = `${key}:${field}`;
    if (element) inputs.current.set(id, element);
    else inputs.current.delete(id);
  };

  const change = (key: number, field: PriceField, value: string) => {
    setSaved(null);
    setRows((current) => current.map((row) => (row.key === key ? { ...row, [field]: value } : row)));
    const rowProblems = problems.get(key);
    if (rowProblems?.[field]) {
      const { [field]: _fixed, ...rest } = rowProblems;
      setProblems((current) => {
        const next = new Map(current);
        if (Object.keys(rest).length === 0) next.delete(key);
        else next.set(key, rest);
        return next;
      });
    }
  };
  const add = () => {
    const key = nextKey();
    focusTarget.current = `${key}:provider`;
    setSaved(null);
    setRows((current) => [...current, emptyPriceRow(key)]);
  };
  const remove = (key: number) => {
    setSaved(null);
    setRows((current) => current.filter((row) => row.key !== key));
    setProblems((current) => new Map([...current].filter(([problemKey]) => problemKey !== key)));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submission.submit(() => {
      const found = priceRowProblems(rows);
      setProblems(found);
      if (found.size > 0) {
        const first = rows.find((row) => found.has(row.key))!;
        const field = (['provider', 'model', 'input', 'cachedInput', 'output'] as const).find((candidate) => found.get(first.key)?.[candidate]);
        inputs.current.get(`${first.key}:${field}`)?.focus();
        return;
      }
      return save.mutateAsync(priceTableInput(rows)).then((next) => {
        setRows(rowsFromTable(next.table, nextKey));
        setSaved(`Saved ${next.table.entries.length} price${next.table.entries.length === 1 ? '' : 's'}. Every estimate now uses them.`);
      });
    });
  };

  const changed = rowsChanged(rows, state.table);
  return (
    <form className="form-card" onSubmit={submit} noValidate aria-labelledby={tableId}>
      <h3 id={tableId} className="form-card__title">
        Price table
      </h3>
      <p className="field__hint">
        {state.edited
          ? 'You have edited these prices.'
          : `These are the prices the console ships with, checked against the providers’ price pages on ${formatDayLong(state.defaultsCheckedOn)}.`}{' '}
        Check them against your provider’s price page: they are a starting point, not a bill.
      </p>
      <p id={unitId} className="field__hint">
        Input, cached input and output are in US dollars per million tokens.
      </p>
      {adding ? (
        <p className="callout callout--warning" role="note">
          The last row is for {unpricedModelLabel(adding.priceProvider, adding.model)}, which has no price yet: enter its prices (0 for a free model)
          and Save prices. Until then its tokens are not in any estimate, and a money budget refuses the runs it cannot count.
        </p>
      ) : addPrice ? (
        <p className="muted" role="note">
          {unpricedModelLabel(addPrice.priceProvider, addPrice.model)} has a price in the table now.
        </p>
      ) : null}
      <datalist id={providersId}>
        {connectionProviders.map((provider) => (
          <option key={provider} value={provider} />
        ))}
      </datalist>
      {rows.length === 0 ? (
        <p className="muted">No prices: every estimate will say its model has no price.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table data-table--compact price-editor__table" aria-labelledby={tableId} aria-describedby={unitId}>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                {priceColumns.map((column) => (
                  <th key={column.field} scope="col">
                    {column.label}
                  </th>
                ))}
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const number = index + 1;
                const rowProblems = problems.get(row.key) ?? {};
                const problemId = (field: PriceField) => `${tableId}-${row.key}-${field}`;
                const cell = (field: PriceField, label: string, extra: { className: string; inputMode?: 'decimal'; list?: string }) => (
                  <td>
                    <input
                      ref={inputRef(row.key, field)}
                      className={`input ${extra.className}`}
                      aria-label={`${label} (row ${number})`}
                      value={row[field]}
                      onChange={(event) => change(row.key, field, event.target.value)}
                      inputMode={extra.inputMode}
                      list={extra.list}
                      autoComplete="off"
                      spellCheck={false}
                      aria-invalid={rowProblems[field] ? true : undefined}
                      aria-describedby={rowProblems[field] ? problemId(field) : undefined}
                    />
                    {rowProblems[field] ? (
                      <p id={problemId(field)} className="field__problem">
                        {rowProblems[field]}
                      </p>
                    ) : null}
                  </td>
                );
                return (
                  <tr key={row.key}>
                    {cell('provider', 'Provider', { className: 'input--mono price-editor__provider', list: providersId })}
                    {cell('model', 'Model', { className: 'input--mono price-editor__model' })}
                    {priceColumns.map((column) => (
                      <Fragment key={column.field}>{cell(column.field, `${column.label} price, $ per million tokens`, { className: 'price-editor__number', inputMode: 'decimal' })}</Fragment>
                    ))}
                    <td>
                      <button
                        type="button"
                        className="button button--small"
                        aria-label={`Remove row ${number}${row.model ? `, ${row.model}` : ''}`}
                        onClick={() => remove(row.key)}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="form-card__actions">
        <button type="button" className="button" onClick={add} aria-disabled={rows.length >= maxPriceRows || undefined} disabled={rows.length >= maxPriceRows}>
          Add price
        </button>
        <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
          Save prices
        </button>
        {state.edited ? (
          <button type="button" className="button" onClick={() => setConfirmingReset(true)}>
            Reset to shipped prices
          </button>
        ) : null}
        {submission.pending ? <span className="form-card__progress">Saving…</span> : null}
        {changed && !submission.pending ? <span className="muted">Not saved yet.</span> : null}
        <p className="form-success" aria-live="polite">
          {saved}
        </p>
      </div>
      {problems.size > 0 ? (
        <p className="field__problem" role="alert">
          {problems.size === 1 ? 'One row needs a fix' : `${problems.size} rows need a fix`} before the prices can be saved.
        </p>
      ) : null}
      {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the prices." /> : null}
      {confirmingReset ? (
        <ConfirmDialog
          title="Reset to the shipped prices?"
          description={
            <p>
              Your edits to the price table are discarded, and every estimate goes back to the prices the console ships with (checked on{' '}
              {formatDayLong(state.defaultsCheckedOn)}).
            </p>
          }
          confirmLabel="Reset prices"
          error={reset.error}
          errorPrefix="Could not reset the prices."
          onConfirm={() =>
            reset.mutateAsync(null).then((next) => {
              setConfirmingReset(false);
              setRows(rowsFromTable(next.table, nextKey));
              setProblems(new Map());
              setSaved('Back to the shipped prices. Every estimate now uses them.');
            })
          }
          onClose={() => setConfirmingReset(false)}
        />
      ) : null}
    </form>
  );
}
