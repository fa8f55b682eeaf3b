import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { EmptyState } from '../../ui/empty-state';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { environmentLabel, homeModeLabel } from './agent-labels';
import { NewAgentDialog } from './new-agent-dialog';
import { useAgents, useConnections, useEnvironments } from './use-agents';
import { providerDisplayName, useCatalog } from './use-catalog';

export function AgentsPage() {
  const agents = useAgents();
  const environments = useEnvironments();
  const connections = useConnections();
  const catalog = useCatalog();
  const search = useSearch();
  const [, navigate] = useLocation();
  // `/agents?new=1` (the Run dialog's link when there is no agent yet) opens the form straight away.
  const [creating, setCreating] = useState(() => new URLSearchParams(search).get('new') === '1');
  const [created, setCreated] = useState<string | null>(null);

  const closeDialog = () => {
    setCreating(false);
    if (search) navigate('/agents', { replace: true });
  };

  let body;
  if (agents.isPending) body = <Loading what="agents" />;
  else if (agents.isError) body = <QueryError what="agents" error={agents.error} onRetry={() => void agents.refetch()} />;
  else if (agents.data.length === 0) {
    body = (
      <EmptyState
        title="No agents yet"
        action={
          <button type="button" className="button button--primary" onClick={() => setCreating(true)}>
            Create the first agent
          </button>
        }
      >
        <p>
          An agent names a CLI (Codex, Claude Code, Pi, Gemini CLI or any command), a model, and an environment to run in:
          local, or sandboxed with its own home and an AI connection. Once there is an agent, any task can be run with it.
        </p>
      </EmptyState>
    );
  } else {
    const environmentById = new Map((environments.data ?? []).map((environment) => [environment.id, environment]));
    const connectionById = new Map((connections.data ?? []).map((connection) => [connection.id, connection]));
    body = (
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Agents</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Provider</th>
              <th scope="col">Model</th>
              <th scope="col">Environment</th>
              <th scope="col">Home</th>
              <th scope="col">AI connection</th>
              <th scope="col" className="numeric">
                Runs at once
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.data.map((agent) => {
              const environment = environmentById.get(agent.environmentId);
              const connection = agent.connectionId ? connectionById.get(agent.connectionId) : undefined;
              const missingConnection = !agent.connectionId && environment?.requiresConnection;
              return (
                <tr key={agent.id}>
                  <th scope="row" className="data-table__primary">
                    <Link href={`/agents/${encodeURIComponent(agent.id)}`} className="table-link">
                      {agent.name}
                    </Link>
                  </th>
                  <td>{providerDisplayName(catalog.data, agent.providerId)}</td>
                  <td>
                    <code>{agent.model}</code>
                  </td>
                  <td>
                    {environment ? (
                      environmentLabel(environment)
                    ) : environments.isPending ? (
                      <span className="muted">…</span>
                    ) : (
                      <span className="muted">Unknown environment</span>
                    )}
                  </td>
                  <td>{homeModeLabel(agent.homeMode)}</td>
                  <td>
                    {connection ? (
                      connection.name
                    ) : missingConnection ? (
                      <span className="status-badge tone-warning" title="Its environment requires a managed AI connection; runs are refused until one is bound">
                        <span className="status-badge__mark" aria-hidden="true" />
                        None (required)
                      </span>
                    ) : agent.connectionId ? (
                      <span className="muted">Unknown connection</span>
                    ) : (
                      <span className="muted">None</span>
                    )}
                  </td>
                  <td className="numeric">{agent.capacity}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <Page
      title="Agents"
      className="agents-page"
      actions={
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            setCreated(null);
            setCreating(true);
          }}
        >
          New agent
        </button>
      }
    >
      <p className="form-success" aria-live="polite">
        {created}
      </p>
      {body}
      {creating ? (
        <NewAgentDialog
          onClose={closeDialog}
          onCreated={(agent) => {
            setCreated(`Created ${agent.name}.`);
            closeDialog();
          }}
        />
      ) : null}
    </Page>
  );
}
