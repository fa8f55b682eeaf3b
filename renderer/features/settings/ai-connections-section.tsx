import { useQuery } from '@tanstack/react-query';
import type { AiConnection } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { EmptyState } from '../../ui/empty-state';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';

const providerLabels: Record<AiConnection['provider'], string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  openrouter: 'OpenRouter',
  custom: 'Custom',
};

const methodLabels: Record<AiConnection['method'], string> = {
  api_key: 'API key',
  subscription_token: 'Subscription token',
};

const connectionStatus: Record<AiConnection['status'], { label: string; tone: string }> = {
  connected: { label: 'Connected', tone: 'success' },
  needs_attention: { label: 'Needs attention', tone: 'warning' },
  expired: { label: 'Expired', tone: 'danger' },
  revoked: { label: 'Revoked', tone: 'muted' },
};

export function AiConnectionsSection() {
  const client = useOperatorClient();
  const connections = useQuery({ queryKey: queryKeys.connections, queryFn: () => client.listConnections() });
  const now = Date.now();

  return (
    <section className="settings-section" aria-labelledby="settings-ai-connections-heading">
      <h2 id="settings-ai-connections-heading" className="section-title">
        AI connections
      </h2>
      <p className="section-intro">
        An AI connection holds a credential (an API key or subscription token) that the console delivers to an agent’s
        run and removes afterwards. Sandboxed agents use one, so an unattended run never sees your personal login.
      </p>
      {connections.isPending ? (
        <Loading what="AI connections" />
      ) : connections.isError ? (
        <QueryError what="AI connections" error={connections.error} onRetry={() => void connections.refetch()} />
      ) : connections.data.length === 0 ? (
        <EmptyState title="No AI connections yet">
          <p>
            AI connections hold the API keys that agents in sandboxed environments use. Until an agent has one, its
            sandboxed runs are refused before anything starts, with a notice that links back here.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">AI connections</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">Method</th>
                <th scope="col">Key</th>
                <th scope="col">Base URL</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {connections.data.map((connection) => {
                const status = connectionStatus[connection.status];
                return (
                  <tr key={connection.id}>
                    <th scope="row" className="data-table__primary">
                      {connection.name}
                      {connection.ownership === 'shared' ? <span className="tag">shared</span> : null}
                    </th>
                    <td>{providerLabels[connection.provider]}</td>
                    <td>{methodLabels[connection.method]}</td>
                    <td className="nowrap">
                      {connection.secretHint ? <code>{connection.secretHint}</code> : <span className="muted">—</span>}
                    </td>
                    <td>{connection.baseUrl ? <code>{connection.baseUrl}</code> : <span className="muted">Provider default</span>}</td>
                    <td className="nowrap">
                      <span className={`status-badge tone-${status.tone}`}>
                        <span className="status-badge__mark" aria-hidden="true" />
                        {status.label}
                      </span>
                    </td>
                    <td className="nowrap">
                      <time dateTime={connection.createdAt} title={formatFullTimestamp(connection.createdAt)}>
                        {formatTimestamp(connection.createdAt, now)}
                      </time>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
