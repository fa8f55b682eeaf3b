import { useEffect, useId, useRef, useState } from 'react';
import { budgetExhausted, budgetUnpriced } from '../../../shared/usage';
import { Link } from 'wouter';
import { environmentRequiresConnection, requiresConnection } from '../../../shared/connection-rule';
import type { Agent, AiConnection, Environment } from '../../../shared/entities';
import { actionPath, actionRoute } from '../../../shared/routes';
import { ErrorAlert } from '../../ui/error-alert';
import { safeActionHref } from '../../ui/error-message';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { useNow } from '../../ui/use-now';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { QueryError } from '../../ui/query-error';
import { focusRouteTarget } from '../../ui/route-focus';
import { ConnectionDialog } from '../connections/connection-dialog';
import { connectionProvidersOf } from '../connections/connection-form';
import { ConnectionOptions, noConnection } from '../connections/connection-options';
import {
  connectionProviderLabels,
  connectionStatusDescription,
  connectionStatusLabel,
  connectionStatusTone,
  connectionTestOutcome,
} from '../connections/connection-labels';
import { useConnectionsForAgent, useSetAgentConnection, useTestAgent } from '../connections/use-connections';
import { latestAgentCheck, type AgentCheck } from './agent-check';
import { findProvider, useCatalog } from './use-catalog';


/** Puts focus on what fixes the agent's AI connection (its picker, or Create an AI connection), from elsewhere on the page. */
export function focusAgentConnectionControl(): void {
  requestAnimationFrame(() => {
    const control = document.querySelector<HTMLElement>('#ai-connection [data-connection-fix]');
    control?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    control?.focus({ preventScroll: true });
  });
}

/**
 * The agent's AI connection picker, at the route notices link to (`#/agents/<id>/ai-connection`).
 * Choosing is saved with Save connection rather than on change: a keyboard user arrowing through
 * the list would otherwise rebind the agent at every step.
 */
export function AgentConnectionSection({
  agent,
  environment,
  focusPicker,
}: {
  agent: Agent;
  environment: Environment | undefined;
  /** Opened by an action link to this setting: bring it into view and put focus on the control that fixes it. */
  focusPicker: boolean;
}) {
  const connections = useConnectionsForAgent(agent.id);
  const catalog = useCatalog();
  const setConnection = useSetAgentConnection();
  const submission = useSingleSubmit();
  const testAgent = useTestAgent();
  const [choice, setChoice] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const sectionRef = useRef<HTMLElement>(null);
  const pickerRef = useRef<HTMLSelectElement>(null);
  const createRef = useRef<HTMLButtonElement>(null);
  const focused = useRef(false);
  /**
   * A connection was just made and bound here: focus returns to the picker once it lists it. State,
   * not a ref: the lists may refresh before or after the bind's answer, and either order must refocus.
   */
  // Set when a connection made here is bound: the picker takes focus once it shows that binding.
  const refocusPicker = useRef(false);
  const ids = { picker: useId(), pickerHint: useId() };

  const list = connections.data;
  const listed = list !== undefined;
  const bound = agent.connectionId ? list?.find((connection) => connection.id === agent.connectionId) : undefined;
  // A choice that left the list (deleted meanwhile) falls back to what the agent has.
  const choiceListed = choice === noConnection || (choice !== null && list?.some((connection) => connection.id === choice));
  const selected = choiceListed && choice !== null ? choice : (agent.connectionId ?? noConnection);
  const changed = selected !== (agent.connectionId ?? noConnection);
  const usable = (list ?? []).filter((connection) => connection.id !== agent.connectionId || connection.status === 'connected');
  const needsConnection = environment ? requiresConnection(environment, agent.homeMode) : agent.homeMode === 'isolated';
  // With nothing to pick, the picker could not fix anything: creating a connection is the way on.
  const pickerShown = listed && (list.length > 0 || agent.connectionId !== null);
  const provider = findProvider(catalog.data, agent.providerId);

  useEffect(() => {
    if (!focusPicker) {
      focused.current = false;
      return;
    }
    if (!listed || focused.current) return;
    focused.current = true;
    focusRouteTarget(pickerRef.current ?? createRef.current, { element: sectionRef.current, block: 'start' });
  }, [focusPicker, listed]);

  useEffect(() => {
    if (!refocusPicker.current || !pickerShown || !bound) return;
    refocusPicker.current = false;
    pickerRef.current?.focus();
  });

  const focusThePicker = () => {
    sectionRef.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    (pickerRef.current ?? createRef.current)?.focus({ preventScroll: true });
  };

  const save = () =>
    submission.submit(() => {
      setSaved(null);
      if (!changed) {
        setSaved('Nothing to save: that is the connection it already has.');
        return;
      }
      const connectionId = selected === noConnection ? null : selected;
      const name = list?.find((connection) => connection.id === connectionId)?.name;
      return setConnection.mutateAsync({ agentId: agent.id, connectionId }).then(() => {
        setChoice(null);
        setSaved(name ? `Saved: runs of ${agent.name} use ${name}.` : `Saved: ${agent.name} has no AI connection.`);
      });
    });

  /** Made in the dialog opened from here: bound to this agent at once, so the notice resolves on this page. */
  const bindCreated = (connection: AiConnection) => {
    setCreating(false);
    setSaved(null);
    setConnection.mutate(
      { agentId: agent.id, connectionId: connection.id },
      {
        onSuccess: () => {
          setChoice(null);
          refocusPicker.current = true;
          setSaved(`Created ${connection.name}: runs of ${agent.name} use it.`);
        },
      },
    );
  };

  const createButton = (primary: boolean) => (
    <button
      ref={createRef}
      type="button"
      data-connection-fix={pickerShown ? undefined : ''}
      className={`button${primary ? ' button--primary' : ''}`}
      aria-disabled={!provider || undefined}
      onClick={() => {
        if (provider) setCreating(true);
      }}
    >
      Create an AI connection
    </button>
  );

  return (
    <section
      ref={sectionRef}
      id="ai-connection"
      className={`settings-section agent-connection${focusPicker ? ' settings-section--target' : ''}`}
      aria-labelledby="agent-ai-connection-heading"
    >
      <h2 id="agent-ai-connection-heading" className="section-title">
        AI connection
      </h2>
      {agent.connectionId && bound === undefined && list !== undefined ? (
        <p className="form-error">The AI connection bound to this agent is no longer in the console. Choose another one.</p>
      ) : !agent.connectionId && needsConnection ? (
        <p className="callout callout--warning">
          <strong>No AI connection bound.</strong> This agent{' '}
          {environment && environmentRequiresConnection(environment) ? 'runs in a sandboxed environment' : 'uses an isolated home'}, so it
          needs a managed AI connection: its runs are refused before anything starts until it has one.
        </p>
      ) : !agent.connectionId ? (
        <p className="muted">This agent runs locally with your own login, so it does not need one.</p>
      ) : null}

      {connections.isError ? (
        <QueryError what="the AI connections this agent may use" error={connections.error} onRetry={() => void connections.refetch()} />
      ) : !listed ? (
        <p className="loading" aria-busy="true">
          Loading the AI connections this agent may use…
        </p>
      ) : !pickerShown ? (
        <div className="agent-connection__create">
          <p>
            No AI connection {agent.name} may use yet
            {provider ? ` (${provider.displayName} speaks ${providerList(connectionProvidersOf(provider))})` : ''}. Create one here: it is
            bound to {agent.name} as soon as it is saved.
          </p>
          <div className="field__row">{createButton(true)}</div>
        </div>
      ) : (
        <div className="agent-connection__picker">
          <div className="field">
            <label htmlFor={ids.picker}>AI connection</label>
            <div className="field__row">
              <select
                ref={pickerRef}
                id={ids.picker}
                data-connection-fix=""
                className="select agent-connection__select"
                value={selected}
                onChange={(event) => {
                  setSaved(null);
                  setChoice(event.target.value);
                }}
                aria-describedby={ids.pickerHint}
              >
                <ConnectionOptions connections={list} />
              </select>
              <button
                type="button"
                className={`button${usable.length > 0 ? ' button--primary' : ''}`}
                aria-disabled={submission.pending || undefined}
                onClick={save}
              >
                Save connection
              </button>
              {createButton(usable.length === 0)}
            </div>
            <p id={ids.pickerHint} className="field__hint">
              {usable.length === 0
                ? 'No other AI connection this agent may use: one must allow this agent (or all agents) and be of a provider its CLI speaks.'
                : 'The connections this agent may use: allowed for it, of a provider its CLI speaks, and not revoked or expired.'}{' '}
              <Link href={actionPath({ kind: 'settings-ai-connections' })}>Manage AI connections in Settings</Link>
            </p>
          </div>
        </div>
      )}
      <p className="form-success" aria-live="polite">
        {submission.pending || setConnection.isPending ? 'Saving…' : saved}
      </p>
      {setConnection.isError ? <ErrorAlert error={setConnection.error} prefix="Could not save the AI connection." /> : null}
      {bound ? <BoundConnection connection={bound} /> : null}
      {creating && provider ? (
        <ConnectionDialog
          forAgent={{ id: agent.id, name: agent.name, connectionProviders: connectionProvidersOf(provider) }}
          onClose={() => setCreating(false)}
          onSaved={bindCreated}
        />
      ) : null}

      <div className="agent-check">
        <div className="agent-check__header">
          <h3 className="agent-check__title">Check</h3>
          <button
            type="button"
            className="button button--small"
            aria-disabled={testAgent.isPending || undefined}
            onClick={() => {
              if (!testAgent.isPending) testAgent.mutate(agent.id);
            }}
          >
            Test agent
          </button>
        </div>
        <div aria-live="polite">
          {testAgent.isPending ? (
            <p className="muted">Checking the agent against the admission rules…</p>
          ) : (
            <AgentCheckResult check={latestAgentCheck(agent.verification, testAgent.data)} agentId={agent.id} onChoose={focusThePicker} />
          )}
        </div>
        {testAgent.isError ? <ErrorAlert error={testAgent.error} prefix="Could not test the agent." /> : null}
      </div>
    </section>
  );
}

/** "OpenAI or Custom (OpenAI-compatible)": the providers a CLI can use, in words. */
function providerList(providers: readonly AiConnection['provider'][]): string {
  const labels = providers.map((provider) => connectionProviderLabels[provider]);
  return labels.length <= 1 ? (labels[0] ?? 'no provider') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}

function BoundConnection({ connection }: { connection: AiConnection }) {
  // For saying whether a time was today: the time this was shown, not a ticking clock.
  const now = useNow(false);
  const lastTest = connection.lastTest;
  const outcome = lastTest ? connectionTestOutcome(lastTest) : null;
  return (
    <>
      <p className="field__hint">
        Its key is delivered to each run of this agent and removed when the run ends; runs never see your own login.
      </p>
      <dl className="facts facts--compact agent-connection__bound" aria-label="Bound AI connection">
        <dt>Uses</dt>
        <dd>
          <strong>{connection.name}</strong>{' '}
          <span className={`status-badge tone-${connectionStatusTone(connection.status)}`} title={connectionStatusDescription(connection.status)}>
            <span className="status-badge__mark" aria-hidden="true" />
            {connectionStatusLabel(connection.status)}
          </span>
        </dd>
        <dt>Key</dt>
        <dd>{connection.secretHint ? <code>{connection.secretHint}</code> : <span className="muted">None saved</span>}</dd>
        <dt>Last test</dt>
        <dd>
          {lastTest && outcome ? (
            <>
              {outcome.label}: {lastTest.message}{' '}
              <time className="muted" dateTime={lastTest.checkedAt} title={formatFullTimestamp(lastTest.checkedAt)}>
                {formatTimestamp(lastTest.checkedAt, now)}
              </time>
            </>
          ) : (
            <span className="muted">Not tested yet (Settings → AI connections)</span>
          )}
        </dd>
      </dl>
    </>
  );
}

function AgentCheckResult({ check, agentId, onChoose }: { check: AgentCheck; agentId: string; onChoose: () => void }) {
  // For saying whether a time was today: the time this was shown, not a ticking clock.
  const now = useNow(false);
  if (check.state === 'unverified') {
    return <p className="muted">Not checked yet. Test agent checks it against the admission rules without starting anything.</p>;
  }
  const ownPicker = actionRoute({ kind: 'agent-ai-connection', agentId });
  const actionHref = check.actionUrl === ownPicker ? undefined : safeActionHref(check.actionUrl);
  return (
    <div className={`agent-check__result agent-check__result--${check.state}`}>
      <p>
        <span className={`status-badge tone-${check.state === 'ok' ? 'success' : 'warning'}`}>
          <span className="status-badge__mark" aria-hidden="true" />
          {check.state === 'ok' ? 'Ready' : 'Would be refused'}
        </span>{' '}
        {check.message ?? (check.state === 'ok' ? 'Runs of this agent would be admitted.' : '')}
        {check.checkedAt ? (
          <>
            {' '}
            <time className="muted" dateTime={check.checkedAt} title={formatFullTimestamp(check.checkedAt)}>
              {formatTimestamp(check.checkedAt, now)}
            </time>
          </>
        ) : null}
      </p>
      {check.state === 'refused' && check.actionUrl === ownPicker ? (
        <p>
          <button type="button" className="button button--small" onClick={onChoose}>
            Choose an AI connection
          </button>
        </p>
      ) : actionHref ? (
        <p>
          <a className="button button--small" href={actionHref}>
            {check.reason === budgetExhausted ? 'Change the budget' : check.reason === budgetUnpriced ? 'Set the price' : 'Open the setting that fixes this'}
          </a>
        </p>
      ) : null}
    </div>
  );
}

