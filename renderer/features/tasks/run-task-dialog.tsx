import { useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import type { Task } from '../../../shared/entities';
import { useUiStore } from '../../state/ui-store';
import { ErrorAlert } from '../../ui/error-alert';
import { ModalDialog } from '../../ui/modal-dialog';
import { Loading, QueryError } from '../../ui/query-error';
import { useAgents } from '../agents/use-agents';
import { useCatalog, providerDisplayName } from '../agents/use-catalog';
import { useStartRun } from '../runs/use-runs';

/** "Run <title>": pick an agent, start the run, and land on its live output. */
export function RunTaskDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  const agents = useAgents();
  const catalog = useCatalog();
  const startRun = useStartRun();
  const remembered = useUiStore((state) => state.runAgentId);
  const remember = useUiStore((state) => state.setRunAgentId);
  const [, navigate] = useLocation();
  const [chosen, setChosen] = useState<string | null>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const createRef = useRef<HTMLAnchorElement>(null);
  const formId = useId();
  const selectId = useId();
  const hintId = useId();

  const list = agents.data ?? [];
  const agentId =
    [chosen, remembered].find((id) => id !== null && list.some((agent) => agent.id === id)) ?? list[0]?.id ?? '';
  const selected = list.find((agent) => agent.id === agentId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (startRun.isPending || !agentId) return;
    remember(agentId);
    startRun.mutate(
      { taskId: task.id, agentId },
      { onSuccess: (run) => navigate(`/runs/${encodeURIComponent(run.id)}`) },
    );
  };

  let body;
  if (agents.isPending) body = <Loading what="agents" />;
  else if (agents.isError) body = <QueryError what="agents" error={agents.error} onRetry={() => void agents.refetch()} />;
  else if (list.length === 0) {
    body = (
      <div className="callout">
        <p>
          <strong>There are no agents yet.</strong> An agent says which CLI runs the task, with which model, where.
        </p>
        <p>
          <Link ref={createRef} href="/agents?new=1">
            Create an agent on the Agents page
          </Link>
        </p>
      </div>
    );
  } else {
    body = (
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={selectId}>Agent</label>
          <select
            ref={selectRef}
            id={selectId}
            className="select"
            value={agentId}
            onChange={(event) => setChosen(event.target.value)}
            aria-describedby={selected ? hintId : undefined}
          >
            {list.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
          {selected ? (
            <p id={hintId} className="field__hint">
              {providerDisplayName(catalog.data, selected.providerId)} · <code>{selected.model}</code> ·{' '}
              {selected.capacity === 1 ? '1 run at a time' : `${selected.capacity} runs at a time`}
            </p>
          ) : null}
        </div>
        {startRun.isError ? <ErrorAlert error={startRun.error} prefix="The run did not start." /> : null}
      </form>
    );
  }

  return (
    <ModalDialog
      title={`Run ${task.title}`}
      onClose={onClose}
      initialFocusRef={list.length > 0 ? selectRef : createRef}
      footer={
        <>
          {startRun.isPending ? <span className="form-card__progress">Starting…</span> : null}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {list.length > 0 ? (
            <button type="submit" form={formId} className="button button--primary" aria-disabled={startRun.isPending || undefined}>
              Start run
            </button>
          ) : null}
        </>
      }
    >
      {body}
    </ModalDialog>
  );
}
