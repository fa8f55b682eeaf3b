import { useEffect, useId, useState } from 'react';
import { createPortal } from 'react-dom';
import type { ChannelInput } from '../../../shared/contract';
import { requiresConnection } from '../../../shared/connection-rule';
import type { AiConnection, CatalogProvider, Environment } from '../../../shared/entities';
import { ConnectionDialog } from '../connections/connection-dialog';
import { connectionProvidersOf } from '../connections/connection-form';
import { ConnectionOptions, noConnection } from '../connections/connection-options';
import { agentFormProblems, createAgentInput, type AgentFormValues } from './agent-form';
import { useAgentDraftCheck, useConnections } from './use-agents';


/**
 * The connections a not-yet-saved agent may be bound to: usable (not revoked or expired, with a key),
 * of a provider its CLI speaks, and either shared with all agents or made in this dialog for it. A
 * connection shared with chosen agents is not offered: the operator chose who may use it.
 */
export function connectionsForNewAgent(
  connections: readonly AiConnection[],
  provider: Pick<CatalogProvider, 'connectionProviders'> | undefined,
  madeHere: ReadonlySet<string>,
): AiConnection[] {
  if (!provider) return [];
  const speaks = new Set(connectionProvidersOf(provider));
  return connections.filter(
    (connection) =>
      speaks.has(connection.provider) &&
      connection.status !== 'revoked' &&
      connection.status !== 'expired' &&
      connection.storage !== null &&
      (connection.agentScope === 'all' || madeHere.has(connection.id)),
  );
}

/**
 * New agent's AI connection: the picker, with Create an AI connection right here (the new connection
 * is chosen at once), and a preview of what admission would say of the agent's first run, so an
 * agent that would be refused is named as such, with what is missing, before it is saved.
 */
export function NewAgentConnectionField({
  values,
  provider,
  environments,
  connectionId,
  onConnectionChange,
}: {
  values: AgentFormValues;
  provider: CatalogProvider | undefined;
  environments: readonly Environment[];
  connectionId: string | null;
  onConnectionChange: (connectionId: string | null) => void;
}) {
  const connections = useConnections();
  const [madeHere, setMadeHere] = useState<ReadonlySet<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const pickerId = useId();
  const hintId = useId();
  const environment = environments.find((candidate) => candidate.id === values.environmentId);
  const needed = environment ? requiresConnection(environment, values.homeMode) : values.homeMode === 'isolated';
  const offered = connectionsForNewAgent(connections.data ?? [], provider, madeHere);
  const chosen = connectionId !== null && offered.some((connection) => connection.id === connectionId) ? connectionId : null;

  // A choice that no longer fits (another provider chosen, say) is dropped rather than sent.
  useEffect(() => {
    if (connectionId !== null && connections.isSuccess && chosen === null) onConnectionChange(null);
  }, [connectionId, chosen, connections.isSuccess, onConnectionChange]);

  return (
    <div className="form-section new-agent-connection">
      <div className="field">
        <label htmlFor={pickerId}>AI connection</label>
        <div className="field__row">
          <select
            id={pickerId}
            className="select"
            value={chosen ?? noConnection}
            onChange={(event) => onConnectionChange(event.target.value === noConnection ? null : event.target.value)}
            aria-describedby={hintId}
          >
            <ConnectionOptions connections={offered} />
          </select>
          <button
            type="button"
            className={`button${needed && offered.length === 0 ? ' button--primary' : ''}`}
            aria-disabled={!provider || undefined}
            onClick={() => {
              if (provider) setCreating(true);
            }}
          >
            Create an AI connection
          </button>
        </div>
        <p id={hintId} className="field__hint">
          {needed
            ? 'Required here: the agent’s runs get this connection’s key instead of your own login.'
            : 'Not needed for a local agent with your own login; a connection chosen here is used only with an isolated home.'}
          {offered.length === 0 && provider ? ' None shared with all agents yet: create one for this agent.' : ''}
        </p>
      </div>
      <DraftAdmissionPreview values={values} provider={provider} connectionId={chosen} />
      {creating && provider
        ? createPortal(
            <ConnectionDialog
              forAgent={{ id: null, name: values.name.trim(), connectionProviders: connectionProvidersOf(provider) }}
              onClose={() => setCreating(false)}
              onSaved={(connection) => {
                setMadeHere((current) => new Set([...current, connection.id]));
                onConnectionChange(connection.id);
                setCreating(false);
              }}
            />,
            document.body,
          )
        : null}
    </div>
  );
}

/** The fields as the core would check them, once they have settled for a moment (not at every keystroke). */
function useSettledDraft(values: AgentFormValues, provider: CatalogProvider | undefined, connectionId: string | null) {
  const named = { ...values, name: values.name.trim() || 'The new agent' };
  const valid = Object.keys(agentFormProblems(named, provider)).length === 0;
  const draft: ChannelInput<'checkAgentDraft'> | null = valid ? { ...createAgentInput(named, provider), connectionId } : null;
  const key = JSON.stringify(draft);
  const [settled, setSettled] = useState(key);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(key), 250);
    return () => clearTimeout(timer);
  }, [key]);
  return settled === 'null' ? null : (JSON.parse(settled) as ChannelInput<'checkAgentDraft'>);
}

function DraftAdmissionPreview({
  values,
  provider,
  connectionId,
}: {
  values: AgentFormValues;
  provider: CatalogProvider | undefined;
  connectionId: string | null;
}) {
  const draft = useSettledDraft(values, provider, connectionId);
  const check = useAgentDraftCheck(draft);
  if (!draft || !check.data) return null;
  const result = check.data;
  return (
    <div className={`callout ${result.ok ? 'callout--success' : 'callout--warning'} draft-admission`} role="status" aria-label="First run">
      {result.ok ? (
        <p>
          <strong>Ready.</strong> {result.message}
        </p>
      ) : (
        <p>
          <strong>Its runs would be refused as it stands.</strong> {result.message}
        </p>
      )}
    </div>
  );
}
