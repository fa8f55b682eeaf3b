import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { VariableLayer } from '../../../shared/entities';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';
import { focusRouteTarget } from '../../ui/route-focus';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useConsoleVariables, useLayerVariables, useSetLayerVariables } from './use-project-setup';
import { rowsFromVariables, variableRowProblems, variablesInput, type VariableRow } from './variables-form';

const layerIntro: Record<VariableLayer, string> = {
  project: 'Every run of this project gets these. An agent’s variables override them, and a task’s override both.',
  agent: 'Every run of this agent gets these, over its project’s variables; a task’s override them.',
  task: 'Runs of this task get these, over its project’s and its agent’s variables.',
};

/**
 * A layer's environment variables (project < agent < task), edited as rows and saved together. A
 * value marked secret is sealed by the console and never shown again: its field stays empty, and
 * leaving it empty keeps it. A variable the console sets itself (HOME, TMPDIR, the proxy, a delivered
 * key) is refused here before the core would.
 */
export function VariablesEditor({ layer, ownerId, ownerName, focus = false }: { layer: VariableLayer; ownerId: string; ownerName: string; focus?: boolean }) {
  const variables = useLayerVariables(layer, ownerId);
  const consoleVariables = useConsoleVariables();
  if (variables.isPending || consoleVariables.isPending) return <Loading what="the variables" />;
  if (variables.isError) return <QueryError what="the variables" error={variables.error} onRetry={() => void variables.refetch()} />;
  if (consoleVariables.isError) return <QueryError what="the console’s own variables" error={consoleVariables.error} onRetry={() => void consoleVariables.refetch()} />;
  return <VariablesForm key={`${layer}:${ownerId}`} layer={layer} ownerId={ownerId} ownerName={ownerName} initial={variables.data} consoleVariables={consoleVariables.data} focus={focus} />;
}

function VariablesForm({
  layer,
  ownerId,
  ownerName,
  initial,
  consoleVariables,
  focus,
}: {
  layer: VariableLayer;
  ownerId: string;
  ownerName: string;
  initial: Parameters<typeof rowsFromVariables>[0];
  consoleVariables: Parameters<typeof variableRowProblems>[1];
  focus: boolean;
}) {
  // Row keys: the saved rows are numbered 1..n here, and rows added or saved later go on from n (the
  // counter is a ref, which is read only in event handlers, not while rendering).
  const [rows, setRows] = useState<VariableRow[]>(() => {
    let key = 0;
    return rowsFromVariables(initial, () => ++key);
  });
  const keys = useRef(initial.length);
  const nextKey = () => ++keys.current;
  const [problems, setProblems] = useState<ReturnType<typeof variableRowProblems>>(new Map());
  const [saved, setSaved] = useState<string | null>(null);
  const save = useSetLayerVariables(layer, ownerId);
  const submission = useSingleSubmit();
  const headingId = useId();
  const hintId = useId();
  const addButton = useRef<HTMLButtonElement>(null);
  const nameInputs = useRef(new Map<number, HTMLInputElement>());
  const focusKey = useRef<number | null>(null);

  const valueInputs = useRef(new Map<number, HTMLInputElement>());
  const formRef = useRef<HTMLFormElement>(null);

  // An action link to the variables (a secret that cannot be read, to enter again) lands on a secret's
  // value, or on Add variable when there is none, with the form in view.
  useEffect(() => {
    if (!focus) return;
    const secret = rows.find((row) => row.secret);
    focusRouteTarget((secret && valueInputs.current.get(secret.key)) ?? addButton.current, { element: formRef.current, block: 'start' });
    // Once, as the form opens at the link: editing the rows later does not move focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focus]);
  useEffect(() => {
    if (focusKey.current === null) return;
    nameInputs.current.get(focusKey.current)?.focus();
    focusKey.current = null;
  });

  const change = (key: number, patch: Partial<VariableRow>) => {
    setSaved(null);
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...patch } : row)));
    if (problems.has(key)) setProblems((current) => new Map([...current].filter(([problemKey]) => problemKey !== key)));
  };
  const add = () => {
    const key = nextKey();
    focusKey.current = key;
    setSaved(null);
    setRows((current) => [...current, { key, name: '', value: '', secret: false, kept: false }]);
  };
  const remove = (key: number) => {
    setSaved(null);
    setRows((current) => current.filter((row) => row.key !== key));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submission.submit(() => {
      const found = variableRowProblems(rows, consoleVariables);
      setProblems(found);
      if (found.size > 0) {
        const first = rows.find((row) => found.has(row.key));
        if (first) nameInputs.current.get(first.key)?.focus();
        return;
      }
      return save.mutateAsync(variablesInput(rows)).then((next) => {
        setRows(rowsFromVariables(next, nextKey));
        setSaved(next.length === 0 ? `Saved: ${ownerName} has no variables.` : `Saved ${next.length} variable${next.length === 1 ? '' : 's'} for ${ownerName}.`);
      });
    });
  };

  return (
    <form ref={formRef} className="form-card variables-editor" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h3 id={headingId} className="form-card__title">
        Environment variables
      </h3>
      <p id={hintId} className="field__hint">
        {layerIntro[layer]} A secret value is stored encrypted, reaches only the run’s environment and is cut out of its output. The
        console sets HOME, TMPDIR, PWD, the proxy and delivered keys itself; no layer can.
      </p>
      {rows.length === 0 ? (
        <p className="muted">No variables.</p>
      ) : (
        <table className="data-table data-table--compact variables-editor__table" aria-label={`Environment variables of ${ownerName}`}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">Secret</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const problem = problems.get(row.key);
              const number = index + 1;
              const problemId = `${headingId}-problem-${row.key}`;
              return (
                <tr key={row.key}>
                  <td>
                    <input
                      ref={(element) => {
                        if (element) nameInputs.current.set(row.key, element);
                        else nameInputs.current.delete(row.key);
                      }}
                      className="input input--mono"
                      aria-label={`Name of variable ${number}`}
                      value={row.name}
                      onChange={(event) => change(row.key, { name: event.target.value })}
                      autoComplete="off"
                      spellCheck={false}
                      aria-invalid={problem?.name ? true : undefined}
                      aria-describedby={problem ? problemId : undefined}
                    />
                  </td>
                  <td>
                    <input
                      ref={(element) => {
                        if (element) valueInputs.current.set(row.key, element);
                        else valueInputs.current.delete(row.key);
                      }}
                      className="input input--mono"
                      aria-label={`Value of variable ${number}`}
                      type={row.secret ? 'password' : 'text'}
                      value={row.value}
                      placeholder={row.secret && row.kept ? 'Saved secret: type to replace it' : ''}
                      onChange={(event) => change(row.key, { value: event.target.value })}
                      autoComplete="off"
                      spellCheck={false}
                      aria-invalid={problem?.value ? true : undefined}
                      aria-describedby={problem ? problemId : undefined}
                    />
                    {problem ? (
                      <p id={problemId} className="field__problem">
                        {[problem.name, problem.value].filter(Boolean).join('; ')}
                      </p>
                    ) : null}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Variable ${number} is secret`}
                      checked={row.secret}
                      onChange={(event) => change(row.key, event.target.checked ? { secret: true } : { secret: false, kept: false, value: row.kept ? '' : row.value })}
                    />
                  </td>
                  <td>
                    <button type="button" className="button button--small" aria-label={`Remove variable ${number}${row.name ? ` ${row.name}` : ''}`} onClick={() => remove(row.key)}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="form-card__actions">
        <button ref={addButton} type="button" className="button" onClick={add}>
          Add variable
        </button>
        <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
          Save variables
        </button>
        {submission.pending ? <span className="form-card__progress">Saving…</span> : null}
        <p className="form-success" aria-live="polite">
          {saved}
        </p>
      </div>
      {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the variables." /> : null}
    </form>
  );
}
