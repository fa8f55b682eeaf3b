import { useState } from 'react';
import { Link } from 'wouter';
import type { AiConnection } from '../../../shared/entities';
import { useAgents, useConnections } from '../agents/use-agents';
import {
  connectionAgentsLabel,
  connectionMethodLabels,
  connectionOwnershipLabels,
  connectionProviderLabels,
  connectionStatusDescription,
  connectionStatusLabel,
  connectionStatusTone,
  connectionTestOutcome,
} from '../connections/connection-labels';
import { useDeleteConnection, useTestConnection, useVaultInfo } from '../connections/use-connections';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { useNow } from '../../ui/use-now';
import { ConnectionDialog } from '../connections/connection-dialog';
import { budgetsOfPath } from '../budgets/budget-links';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; connectionId: string } | { kind: 'delete'; connectionId: string } | null;

export function AiConnectionsSection() {
  const connections = useConnections();
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [done, setDone] = useState<string | null>(null);
  const open = (next: OpenDialog) => {
    setDone(null);
    setDialog(next);
  };
  const list = connections.data ?? [];
  const target = dialog && dialog.kind !== 'create' ? list.find((connection) => connection.id === dialog.connectionId) : undefined;

  let body;
  if (connections.isPending) body = <Loading what="AI connections" />;
  else if (connections.isError) {
    body = <QueryError what="AI connections" error={connections.error} onRetry={() => void connections.refetch()} />;
  } else if (list.length === 0) {
    body = (
      <EmptyState title="No AI connections yet">
        <p>
          AI connections hold the API keys that agents in sandboxed environments use. Until an agent has one, its sandboxed
          runs are refused before anything starts, with a notice that links back here.
        </p>
      </EmptyState>
    );
  } else {
    body = (
      <ul className="item-list connection-list" aria-label="AI connections">
        {list.map((connection) => (
          <ConnectionRow
            key={connection.id}
            connection={connection}
            onEdit={() => open({ kind: 'edit', connectionId: connection.id })}
            onDelete={() => open({ kind: 'delete', connectionId: connection.id })}
          />
        ))}
      </ul>
    );
  }

  return (
    <section className="settings-section" aria-labelledby="settings-ai-connections-heading">
      <div className="section-header">
        <h2 id="settings-ai-connections-heading" className="section-title">
          AI connections
        </h2>
        <button type="button" className="button button--primary" onClick={() => open({ kind: 'create' })}>
          New connection
        </button>
      </div>
      <p className="section-intro">
        An AI connection holds a credential (an API key or subscription token) that the console delivers to an agent’s
        run and removes afterwards. Sandboxed agents use one, so an unattended run never sees your personal login.
      </p>
      <VaultNotice />
      <p className="form-success" aria-live="polite">
        {done}
      </p>
      {body}
      {dialog?.kind === 'create' ? (
        <ConnectionDialog
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            setDone(`Created ${saved.name}. Test it, then choose it on the agents that should use it.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'edit' && target ? (
        <ConnectionDialog
          connection={target}
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            setDone(`Saved ${saved.name}.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' && target ? (
        <DeleteConnectionDialog
          connection={target}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            setDialog(null);
            setDone(`Deleted ${target.name}.`);
          }}
        />
      ) : null}
    </section>
  );
}

/** Where the keys are kept, said plainly; a store that protects nothing is said loudly. */
function VaultNotice() {
  const vault = useVaultInfo();
  if (vault.isPending) return null;
  if (vault.isError) return <QueryError what="where keys are kept" error={vault.error} onRetry={() => void vault.refetch()} />;
  const info = vault.data;
  const warn = !info.protects || info.warning;
  return (
    <div className="vault-info">
      <p className="vault-info__description">
        <span className="vault-info__label">Where keys are kept: </span>
        {info.description} The console never shows a key again: only a hint, such as the provider and its last four
        characters.
      </p>
      {warn ? (
        <div className="callout callout--warning vault-info__warning" role="alert">
          <p>
            <strong>{info.protects ? 'Warning: ' : 'Warning: keys are not protected at rest. '}</strong>
            {info.warning ?? 'Anyone who can read the data directory can read the keys.'}
          </p>
        </div>
      ) : null}
    </div>
  );
}

function ConnectionStatusBadge({ status }: { status: AiConnection['status'] }) {
  return (
    <span className={`status-badge tone-${connectionStatusTone(status)}`} data-connection-status={status} title={connectionStatusDescription(status)}>
      <span className="status-badge__mark" aria-hidden="true" />
      {connectionStatusLabel(status)}
    </span>
  );
}

function ConnectionRow({ connection, onEdit, onDelete }: { connection: AiConnection; onEdit: () => void; onDelete: () => void }) {
  const agents = useAgents();
  const test = useTestConnection();
  // For saying whether a test was today: the time this was shown, not a ticking clock.
  const now = useNow(false);
  const lastTest = connection.lastTest;
  const outcome = lastTest ? connectionTestOutcome(lastTest) : null;

  return (
    <li className="item-list__row connection-row">
      <div className="item-list__main">
        <div className="item-list__line">
          <span className="item-list__name">{connection.name}</span>
          <ConnectionStatusBadge status={connection.status} />
          {connection.updating ? <span className="muted">Saving…</span> : null}
        </div>
        <dl className="inline-facts" aria-label={`${connection.name} details`}>
          <div>
            <dt>Provider</dt>
            <dd>{connectionProviderLabels[connection.provider]}</dd>
          </div>
          <div>
            <dt>Method</dt>
            <dd>{connectionMethodLabels[connection.method]}</dd>
          </div>
          <div>
            <dt>Key</dt>
            <dd>{connection.secretHint ? <code>{connection.secretHint}</code> : <span className="muted">None saved</span>}</dd>
          </div>
          <div>
            <dt>Base URL</dt>
            <dd>{connection.baseUrl ? <code>{connection.baseUrl}</code> : <span className="muted">Provider default</span>}</dd>
          </div>
          <div>
            <dt>Ownership</dt>
            <dd>{connectionOwnershipLabels[connection.ownership]}</dd>
          </div>
          <div>
            <dt>Agents</dt>
            <dd>{connectionAgentsLabel(connection, agents.data ?? [])}</dd>
          </div>
        </dl>
        <div className="connection-test" aria-live="polite">
          <span className="connection-test__label">Last test:</span>{' '}
          {test.isPending ? (
            <span className="muted">Testing…</span>
          ) : lastTest && outcome ? (
            <>
              <span className={`status-badge tone-${outcome.tone}`}>
                <span className="status-badge__mark" aria-hidden="true" />
                {outcome.label}
              </span>{' '}
              <span className="connection-test__message">{lastTest.message}</span>{' '}
              <time className="muted" dateTime={lastTest.checkedAt} title={formatFullTimestamp(lastTest.checkedAt)}>
                {formatTimestamp(lastTest.checkedAt, now)}
              </time>
            </>
          ) : (
            <span className="muted">Not tested yet.</span>
          )}
        </div>
        {test.isError ? <ErrorAlert error={test.error} prefix={`Could not test ${connection.name}.`} /> : null}
      </div>
      <div className="item-list__actions">
        <button
          type="button"
          className="button button--small"
          aria-label={`Test ${connection.name}`}
          aria-disabled={test.isPending || undefined}
          onClick={() => {
            if (!test.isPending) test.mutate(connection.id);
          }}
        >
          {test.isPending ? 'Testing…' : 'Test'}
        </button>
        <Link href={budgetsOfPath('connection', connection.id)} className="button button--small" aria-label={`Budgets of ${connection.name}`}>
          Budgets
        </Link>
        <button type="button" className="button button--small" aria-label={`Edit ${connection.name}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="button button--small button--danger-quiet" aria-label={`Delete ${connection.name}`} onClick={onDelete}>
          Delete
        </button>
      </div>
    </li>
  );
}

function DeleteConnectionDialog({ connection, onClose, onDeleted }: { connection: AiConnection; onClose: () => void; onDeleted: () => void }) {
  const deleteConnection = useDeleteConnection();
  const agents = useAgents();
  const bound = (agents.data ?? []).filter((agent) => agent.connectionId === connection.id);
  return (
    <ConfirmDialog
      title="Delete AI connection"
      description={
        <p>
          Delete {connection.name}? Its key is erased.{' '}
          {bound.length > 0
            ? `${bound.map((agent) => agent.name).join(', ')} ${bound.length === 1 ? 'uses' : 'use'} it: their sandboxed runs are refused until they choose another connection.`
            : 'No agent uses it now.'}
        </p>
      }
      confirmLabel="Delete"
      error={deleteConnection.error}
      errorPrefix="Could not delete the connection."
      onConfirm={() => deleteConnection.mutateAsync(connection.id).then(onDeleted)}
      onClose={onClose}
    />
  );
}
