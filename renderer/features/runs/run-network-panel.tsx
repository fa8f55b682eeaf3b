import { formatAllowedHost, parseAllowedHost } from '../../../shared/allowed-hosts';
import type { RunDetail, RunNetwork } from '../../../shared/entities';
import { actionRoute } from '../../../shared/routes';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import { RunPanel } from './run-panel';
import { useRunNetwork } from './use-runs';

/** Why a run's Network panel has nothing to list, when the console could not see its connections. */
export function unobservedNetwork(network: Pick<RunNetwork, 'environmentKind' | 'networkMode'>): string {
  if (network.environmentKind === 'local') return 'This run had no sandbox: its network was yours, and the console neither limited nor saw it.';
  if (network.networkMode === 'none') return 'No network: every connection failed inside the sandbox, so there was nothing to let through or record.';
  return 'Open network: the run reached hosts directly, not through the console’s proxy, so none of them were recorded.';
}

/**
 * Each host the run reached or was refused, with its port, how often, first and last, and the
 * verdict. Hosts are the agent's own text: the core sends them escaped and length-capped, and they
 * are shown as text. A refused one links to the environment's allowed hosts with it filled in.
 */
export function NetworkPanel({ run, now }: { run: RunDetail; now: number }) {
  const network = useRunNetwork(run.id);
  return (
    <RunPanel title="Network" className="network-panel" labelledRegion>
      {network.isPending ? (
        <Loading what="the run’s network" />
      ) : network.isError ? (
        <QueryError what="the run’s network" error={network.error} onRetry={() => void network.refetch()} />
      ) : !network.data.observed ? (
        <p className="muted">{unobservedNetwork(network.data)}</p>
      ) : network.data.hosts.length === 0 ? (
        <p className="muted">
          {isActiveRunStatus(run.status) ? 'No request has gone through the egress proxy yet.' : 'The run asked the egress proxy for no host.'}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table data-table--compact network-hosts" aria-label="Hosts the run asked for">
              <thead>
                <tr>
                  <th scope="col">Host</th>
                  <th scope="col" className="numeric">
                    Port
                  </th>
                  <th scope="col" className="numeric">
                    Requests
                  </th>
                  <th scope="col">First</th>
                  <th scope="col">Last</th>
                  <th scope="col">Verdict</th>
                </tr>
              </thead>
              <tbody>
                {network.data.hosts.map((entry) => {
                  const allowable = entry.allowed ? null : parseAllowedHost(formatAllowedHost({ host: entry.host, port: entry.port }));
                  return (
                    <tr key={`${entry.host}:${entry.port}:${entry.allowed}`} data-verdict={entry.allowed ? 'allowed' : 'blocked'}>
                      <th scope="row" className="host-name">
                        <code>{entry.host}</code>
                      </th>
                      <td className="numeric">{entry.port}</td>
                      <td className="numeric">{entry.count}</td>
                      <td className="nowrap">
                        <time dateTime={entry.firstAt} title={formatFullTimestamp(entry.firstAt)}>
                          {formatTimestamp(entry.firstAt, now)}
                        </time>
                      </td>
                      <td className="nowrap">
                        <time dateTime={entry.lastAt} title={formatFullTimestamp(entry.lastAt)}>
                          {formatTimestamp(entry.lastAt, now)}
                        </time>
                      </td>
                      <td className="nowrap">
                        <span className={`status-badge tone-${entry.allowed ? 'success' : 'danger'}`}>
                          <span className="status-badge__mark" aria-hidden="true" />
                          {entry.allowed ? 'Allowed' : 'Blocked'}
                        </span>
                        {allowable?.ok ? (
                          <>
                            {' '}
                            <a
                              className="button button--small"
                              href={actionRoute({ kind: 'settings-environment', environmentId: run.environmentId, allowHost: allowable.text })}
                              aria-label={`Allow ${allowable.text} in ${run.confinement.environmentName}`}
                            >
                              Allow
                            </a>
                          </>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {network.data.truncated ? <p className="muted">Only the {network.data.hosts.length} most recently asked hosts are listed.</p> : null}
        </>
      )}
    </RunPanel>
  );
}
