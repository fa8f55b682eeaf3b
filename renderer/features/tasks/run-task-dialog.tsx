import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import type { RunSummary, Task } from '../../../shared/entities';
import { actionPath } from '../../../shared/routes';
import { useUiStore } from '../../state/ui-store';
import { Choice } from '../../ui/choice';
import { ErrorAlert } from '../../ui/error-alert';
import { pluralize } from '../../ui/format';
import { ModalDialog } from '../../ui/modal-dialog';
import { Loading, QueryError } from '../../ui/query-error';
import { StatusBadge } from '../../ui/status-badge';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useAgents } from '../agents/use-agents';
import { useCatalog, providerDisplayName } from '../agents/use-catalog';
import { useStartRun, useStartRuns } from '../runs/use-runs';

/** The most agents one Run starts at once (the contract's limit). */
const maxAgentsAtOnce = 12;

/**
 * The runs Start runs began, when any was refused: each with its status, so a refusal is not lost on
 * the way to Compare.
 */
function StartedRuns({ runs }: { runs: RunSummary[] }) {
  const refused = runs.filter((run) => run.status === 'refused').length;
  return (
    <div className="dialog-form" role="status">
      <p>
        {refused === runs.length
          ? `All ${pluralize(runs.length, 'run')} were refused: nothing was started.`
          : `${pluralize(runs.length - refused, 'run')} started, ${refused} refused. A refused run says why on its page.`}
      </p>
      <ul className="run-outcomes" aria-label="Runs started">
        {runs.map((run) => (
          <li key={run.id}>
            <StatusBadge status={run.status} />
            <Link href={actionPath({ kind: 'run', runId: run.id })} className="table-link">
              {run.agentName}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * "Run <title>": tick one agent or several, start a run on each, and land on the run's live output
 * (one agent) or on the task's Compare page (several).
 */
export function RunTaskDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  const agents = useAgents();
  const catalog = useCatalog();
  const startRun = useStartRun();
  const startRuns = useStartRuns();
  const remembered = useUiStore((state) => state.runAgentId);
  const remember = useUiStore((state) => state.setRunAgentId);
  const [, navigate] = useLocation();
  // Null until the operator ticks or unticks one: then the remembered agent (else the first) is ticked.
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<RunSummary[] | null>(null);
  const firstTickedRef = useRef<HTMLInputElement | null>(null);
  const createRef = useRef<HTMLAnchorElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const formId = useId();
  const problemId = useId();

  // The dialog opens before the agents may have loaded: the first ticked one gets focus once they have.
  const agentsLoaded = agents.isSuccess;
  useEffect(() => {
    if (agentsLoaded) firstTickedRef.current?.focus();
  }, [agentsLoaded]);

  // The form's buttons give way to the outcome's: focus goes to Close rather than to the page.
  useEffect(() => {
    if (outcome) closeRef.current?.focus();
  }, [outcome]);

  const list = agents.data ?? [];
  const fallback = list.find((agent) => agent.id === remembered)?.id ?? list[0]?.id;
  const ticked = (chosen ?? (fallback ? [fallback] : [])).filter((id) => list.some((agent) => agent.id === id));
  // Started in the order the agents are listed, whatever order they were ticked in.
  const agentIds = list.filter((agent) => ticked.includes(agent.id)).map((agent) => agent.id);
  const { pending, submit: submitOnce } = useSingleSubmit();
  const failed = startRun.isError ? startRun.error : startRuns.isError ? startRuns.error : null;
  const compareRoute = actionPath({ kind: 'task-compare', taskId: task.id });

  const toggle = (agentId: string, on: boolean) => {
    setProblem(null);
    setChosen(on ? [...ticked, agentId] : ticked.filter((id) => id !== agentId));
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // A second click while the runs start would start them twice.
    submitOnce(() => {
      if (agentIds.length === 0) {
        setProblem('Tick at least one agent to run the task on.');
        return;
      }
      if (agentIds.length > maxAgentsAtOnce) {
        setProblem(`One Run starts at most ${maxAgentsAtOnce} agents; untick ${agentIds.length - maxAgentsAtOnce}.`);
        return;
      }
      remember(agentIds[0]!);
      if (agentIds.length === 1) {
        return startRun.mutateAsync({ taskId: task.id, agentId: agentIds[0]! }).then((run) => navigate(actionPath({ kind: 'run', runId: run.id })));
      }
      return startRuns.mutateAsync({ taskId: task.id, agentIds }).then(({ runs }) => {
        if (runs.some((run) => run.status === 'refused')) setOutcome(runs);
        else if (runs.length > 1) navigate(compareRoute);
        else if (runs[0]) navigate(actionPath({ kind: 'run', runId: runs[0].id }));
      });
    });
  };

  let body;
  let footer;
  if (outcome) {
    body = <StartedRuns runs={outcome} />;
    footer = (
      <>
        <button ref={closeRef} type="button" className="button" onClick={onClose}>
          Close
        </button>
        {outcome.length > 1 ? (
          <button type="button" className="button button--primary" onClick={() => navigate(compareRoute)}>
            Compare the runs
          </button>
        ) : null}
      </>
    );
  } else if (agents.isPending) body = <Loading what="agents" />;
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
        <fieldset className="form-section" aria-describedby={problem ? problemId : undefined}>
          <legend className="form-section__legend">Agents</legend>
          <p className="field__hint">Tick several to run the task on each, in a task root of its own, and compare them.</p>
          <ul className="choice-list" aria-label="Agents to run the task on">
            {list.map((agent) => (
              <li key={agent.id}>
                <Choice
                  type="checkbox"
                  value={agent.id}
                  checked={ticked.includes(agent.id)}
                  onChange={(on) => toggle(agent.id, on)}
                  {...(agent.id === agentIds[0]
                    ? {
                        inputRef: (element: HTMLInputElement | null) => {
                          firstTickedRef.current = element;
                        },
                      }
                    : {})}
                  label={agent.name}
                  hint={`${providerDisplayName(catalog.data, agent.providerId)} · ${agent.model} · ${
                    agent.capacity === 1 ? '1 run at a time' : `${agent.capacity} runs at a time`
                  }`}
                />
              </li>
            ))}
          </ul>
          {problem ? (
            <p id={problemId} className="field__problem" role="alert">
              {problem}
            </p>
          ) : null}
        </fieldset>
        {failed ? <ErrorAlert error={failed} prefix={startRuns.isError ? 'The runs did not start.' : 'The run did not start.'} /> : null}
      </form>
    );
  }

  footer ??= (
    <>
      {pending ? <span className="form-card__progress">Starting…</span> : null}
      <button type="button" className="button" onClick={onClose}>
        Cancel
      </button>
      {list.length > 0 ? (
        <button type="submit" form={formId} className="button button--primary" aria-disabled={pending || undefined}>
          {agentIds.length > 1 ? `Start ${agentIds.length} runs` : 'Start run'}
        </button>
      ) : null}
    </>
  );

  return (
    <ModalDialog title={`Run ${task.title}`} onClose={onClose} initialFocusRef={list.length > 0 ? firstTickedRef : createRef} footer={footer}>
      {body}
    </ModalDialog>
  );
}
